import ArgumentParser
import ConfigurationProfiles
import PlatformIO
import ProfileSignatures

/// A profile file read and checked: its bytes, what it sets, and what its signature proved.
struct ReadProfile {
    var path: String
    var bytes: [UInt8]
    var profile: ConfigurationProfile
    var signature: ProfileSignatureCheck.Outcome

    /// Reads the profile at `path`, or says why not (naming the file) and exits 1.
    static func read(_ path: String, trustFiles: [String]) async throws -> ReadProfile {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, limit: ConfigurationProfile.maximumSize)
        } catch {
            throw fail("\(error)")
        }
        let profile: ConfigurationProfile
        do { profile = try ConfigurationProfile(bytes: bytes) } catch { throw fail("\(path): \(error)") }
        let signature = await ProfileSignatureCheck.check(bytes, trustFiles: trustFiles)
        return ReadProfile(path: path, bytes: bytes, profile: profile, signature: signature)
    }
}
