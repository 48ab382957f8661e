#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs another program and waits for it (`posix_spawn`, then `waitpid`),
/// its output and errors going where this process's go.
///
/// ```swift
/// let status = try ChildProcess.run(["/usr/bin/setpriv", "--reuid=1000", "--", "/usr/bin/true"])
/// ```
package enum ChildProcess {
    /// Runs `arguments` (the first is the program's path) with `environment`
    /// (`NAME=value` entries; this process's when nil); returns its exit status
    /// (128 + the signal when a signal ended it).
    package static func run(_ arguments: [String], environment: [String]? = nil) throws(FileError) -> Int32 {
        guard let program = arguments.first else { throw FileError(path: "", reason: "no program to run") }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let code: Int32
        if let environment {
            let envp = environment.map { strdup($0) } + [nil]
            defer { for p in envp { free(p) } }
            code = posix_spawn(&pid, program, nil, nil, argv, envp)
        } else {
            code = posix_spawn(&pid, program, nil, nil, argv, environ)
        }
        guard code == 0 else { throw FileError(path: program, errno: code) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw FileError(path: program) }
        }
        if status & 0x7F == 0 { return (status >> 8) & 0xFF }
        return 128 + (status & 0x7F)
    }

    /// The running program's own path (`/proc/self/exe` resolved).
    package static var currentExecutable: String {
        FileIO.canonicalPath("/proc/self/exe") ?? "/proc/self/exe"
    }
}
