#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An account in the password database.
package struct UserAccount: Sendable, Hashable {
    package var name: String
    package var userID: UInt32
    package var groupID: UInt32
    package var home: String

    /// The account called `name`, if there is one.
    package static func named(_ name: String) -> UserAccount? {
        guard let pw = getpwnam(name) else { return nil }
        return UserAccount(pw.pointee)
    }

    private init(_ pw: passwd) {
        name = pw.pw_name.map { String(cString: $0) } ?? ""
        userID = UInt32(pw.pw_uid)
        groupID = UInt32(pw.pw_gid)
        home = pw.pw_dir.map { String(cString: $0) } ?? "/"
    }
}
