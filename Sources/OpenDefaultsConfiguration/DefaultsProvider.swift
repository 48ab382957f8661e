public import Configuration
public import OpenDefaults
import PlatformIO
import SharedTables
public import PropertyList
import Synchronization

/// A swift-configuration provider over a ``/OpenDefaults/Defaults`` search
/// list: forced values, the command line (`-http.port 8080`), the domain, the
/// global domain and registered defaults, in that order — and changes by any
/// process (another `defaults write`) reach its watchers at once.
///
/// ```swift
/// import Configuration
/// import OpenDefaultsConfiguration
///
/// let config = ConfigReader(provider: DefaultsProvider(defaults: .standard))
/// let port = config.int(forKey: "http.port", default: 8080)
/// ```
///
/// **Keys.** A configuration key's components are joined with dots and looked
/// up as one defaults key first (`http.port`); when no domain has that flat
/// key, the first component names a dictionary and the rest a path in it
/// (`http` → `{ port = 8080; }`). A flat key that contains dots wins over a
/// nested one.
///
/// **Types.** Property-list values convert as a reader asks: `string` from
/// strings (numbers give their text); `int` from integers, whole reals and
/// decimal strings; `double` from reals, integers and numeric strings; `bool`
/// from booleans, the integers 0 and 1, and `true`/`false`/`YES`/`NO`/`1`/`0`;
/// `bytes` from data (or Base64 text); arrays from arrays of those. Anything
/// else throws ``DefaultsProviderError``.
public struct DefaultsProvider: ConfigProvider {
    /// The defaults object read.
    public let defaults: Defaults
    private let secrets: SecretsSpecifier<String, PropertyList>
    private let name: String?

    /// A provider over `defaults`.
    ///
    /// - Parameters:
    ///   - defaults: the search list to read.
    ///   - secrets: which keys (dotted) hold secrets, redacted in logs.
    ///   - name: a name to tell several providers apart in logs.
    ///
    /// ```swift
    /// let provider = DefaultsProvider(defaults: .standard, secrets: .specific(["db.password"]))
    /// ```
    public init(defaults: Defaults, secrets: SecretsSpecifier<String, PropertyList> = .none, name: String? = nil) {
        self.defaults = defaults
        self.secrets = secrets
        self.name = name
    }

    /// `DefaultsProvider[<domain>]`, or with the given name.
    public var providerName: String { "DefaultsProvider[\(name ?? defaults.domainName)]" }

    /// The value of `key` converted to `type`, from the search list as it is now.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try DefaultsSnapshot.lookup(key, type: type, secrets: secrets) { defaults.propertyList(forKey: $0) }
    }

    /// The same as ``value(forKey:type:)``: reads never wait.
    nonisolated(nonsending) public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    /// The search list frozen now (copy-on-write: nothing is copied until the next change).
    public func snapshot() -> any ConfigSnapshot {
        DefaultsSnapshot(providerName: providerName, view: defaults.resolvedView(), secrets: secrets)
    }

    /// The value now, then each time it changes (by this process or any other).
    nonisolated(nonsending) public func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        let (stream, continuation) = AsyncStream<Result<LookupResult, any Error>>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let last = Lock<Result<LookupResult, any Error>?>(nil)
        let provider = self
        let send: @Sendable () -> Void = {
            let now = Result { try provider.value(forKey: key, type: type) }
            let changed = last.withLock { previous -> Bool in
                if case .success(let a)? = previous, case .success(let b) = now, a == b { return false }
                previous = now
                return true
            }
            if changed { continuation.yield(now) }
        }
        send()
        let token = defaults.observeChanges(send)
        defer {
            token.cancel()
            continuation.finish()
        }
        return try await updatesHandler(ConfigUpdatesAsyncSequence(stream))
    }

    /// A snapshot now, then one after each change.
    nonisolated(nonsending) public func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        let (stream, continuation) = AsyncStream<any ConfigSnapshot>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let provider = self
        continuation.yield(snapshot())
        let token = defaults.observeChanges { continuation.yield(provider.snapshot()) }
        defer {
            token.cancel()
            continuation.finish()
        }
        return try await updatesHandler(ConfigUpdatesAsyncSequence(stream))
    }
}
