import Foundation

/// SIGPIPE ignored in the test process, once: a child that exits before it
/// has read all of its standard input (a refusal, on purpose) must fail
/// the write with EPIPE, not kill every test running beside it. Write with
/// the throwing `write(contentsOf:)` and ignore its error: Foundation's
/// older `write(_:)` stops the process on EPIPE.
///
/// ```swift
/// TestProcess.ignoreBrokenPipes()
/// try? inp.fileHandleForWriting.write(contentsOf: data)
/// ```
public enum TestProcess {
    private static let ignored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    public static func ignoreBrokenPipes() { _ = ignored }
}
