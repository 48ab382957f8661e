import ArgumentParser
import ProfileSignatures

/// Options every command that checks signatures shares.
struct TrustOptions: ParsableArguments {
    @Option(name: .customLong("trust"), help: ArgumentHelp("A PEM file of certificates to trust as signers' roots (repeatable); added to the system's CA bundle and <root>/etc/opendefaults/profile-trust.", valueName: "file"))
    var extraTrust: [String] = []

    var trustFiles: [String] { ProfileSignatureCheck.defaultTrustFiles() + extraTrust }
}
