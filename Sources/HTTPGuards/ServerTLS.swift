package import NIOSSL
import PlatformIO

/// A server's TLS certificate chain and private key, read from PEM files and
/// checked before the server starts: both servers (`ubiquity serve` and
/// `settings serve`) listen beyond loopback only with one, so a mistake in the
/// files is told at start, naming the file and what was expected, and never as
/// a failed handshake later.
///
/// ```swift
/// let tls = try ServerTLS(certificateFile: "/etc/ssl/settings.pem", keyFile: "/etc/ssl/private/settings.key")
/// let channel = try TLSChannel(HTTP1Channel(responder: responder), tlsConfiguration: tls.configuration)
/// ```
package struct ServerTLS: Sendable {
    /// Why the files cannot be used: the file and what was expected of it.
    package struct Failure: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    /// The configuration a TLS channel is made with (no client certificates asked for).
    package let configuration: TLSConfiguration

    /// The most bytes read from either file: a chain of a few certificates is a few kilobytes.
    static let maximumFileBytes = 1 << 20

    /// Reads and checks the PEM files: the certificate file holds one or more
    /// certificates (the server's first), the key file its private key, and
    /// the two belong together.
    package init(certificateFile: String, keyFile: String) throws(Failure) {
        let key: NIOSSLPrivateKey
        let certificateBytes = try Self.read(certificateFile, what: "TLS certificate")
        guard let chain = try? NIOSSLCertificate.fromPEMBytes(certificateBytes), !chain.isEmpty else {
            throw Failure(description: "the TLS certificate \(certificateFile) holds no PEM certificate (expected \"-----BEGIN CERTIFICATE-----\")")
        }
        let keyBytes = try Self.read(keyFile, what: "TLS key")
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw Failure(description: "the TLS key \(keyFile) holds no unencrypted PEM private key (expected \"-----BEGIN PRIVATE KEY-----\" or a named kind)")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        // The context is where the key is matched to the certificate: made once here to tell a
        // mismatch now (each channel makes its own later).
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw Failure(description: "the TLS key \(keyFile) is not the private key of the certificate \(certificateFile) (\(error))")
        }
        self.configuration = configuration
    }

    private static func read(_ path: String, what: String) throws(Failure) -> [UInt8] {
        do {
            return try FileIO.read(path, limit: maximumFileBytes)
        } catch {
            throw Failure(description: "the \(what) \(path): cannot be read: \(error.reason)")
        }
    }
}
