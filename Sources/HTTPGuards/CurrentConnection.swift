package import NIOCore

/// The connection whose request the current task answers, for code that
/// must act on the connection itself (trust it, close it after the answer)
/// but is handed only the request.
///
/// A server's child channel sets it around the connection's task:
///
/// ```swift
/// await CurrentConnection.$channel.withValue(value.channel) {
///     await base.handle(value: value, logger: logger)
/// }
/// ```
package enum CurrentConnection {
    @TaskLocal package static var channel: (any Channel)?
}
