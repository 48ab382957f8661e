import UbiquityProtocol
import PlatformIO
import SharedTables
import Synchronization

/// What a server knows of bearer tokens, under one lock: the valid ones it
/// has checked (forgotten whenever the backend's token generation moves),
/// the event streams open with each (ended when it is revoked), and when
/// each one's last use was last written.
///
/// ```swift
/// if book.moveGeneration(to: try await backend.tokenGeneration()) { … }
/// ```
final class TokenBook: Sendable {
    struct State {
        var accounts: [Key: UbiquityAccountInfo] = [:]
        /// The backend's token generation the accounts were checked against (nil: not read yet).
        var generation: Int64? = nil
        var streams: [Key: [ObjectIdentifier: any Revocable]] = [:]
        var usesWritten: [Key: ContinuousClock.Instant] = [:]
    }

    /// A token's hash as a table's key: equal when the bytes are, hashed in one
    /// call on the bytes (an array of `UInt8` is hashed a byte at a time: 32
    /// calls, twice a commit, proposal 0019).
    struct Key: Hashable {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
    let state = Lock(State())

    /// The most tokens remembered (valid ones, last uses): a flood of distinct tokens costs bounded memory.
    static let capacity = 100_000

    /// The account of a token checked since the generation last moved.
    func account(_ hash: [UInt8]) -> UbiquityAccountInfo? { state.withLock { $0.accounts[Key(hash)] } }

    /// The generation the remembered accounts belong to.
    var generation: Int64? { state.withLock { $0.generation } }

    /// Remembers a token the backend vouched for, unless the generation moved
    /// since `generation` (a revocation may have come while it was asked).
    func remember(_ account: UbiquityAccountInfo, for hash: [UInt8], checkedAt generation: Int64?) {
        state.withLock { s in
            if generation != nil, s.generation == generation, s.accounts.count < Self.capacity { s.accounts[Key(hash)] = account }
            s._checkInvariantsAfterChange()
        }
    }

    /// Forgets a token found no longer valid.
    func forget(_ hash: [UInt8]) {
        _ = state.withLock { $0.accounts.removeValue(forKey: Key(hash)) }
    }

    /// Records the backend's generation; true (and every remembered account
    /// forgotten) when it moved from a known one.
    func moveGeneration(to now: Int64) -> Bool {
        state.withLock { s -> Bool in
            defer { s.generation = now }
            guard let known = s.generation, known != now else { return false }
            s.accounts.removeAll()
            s._checkInvariantsAfterChange()
            return true
        }
    }

    /// A stream or long poll opened with the token `hash`.
    func opened(_ stream: any Revocable, by hash: [UInt8]) {
        state.withLock { $0.streams[Key(hash), default: [:]][ObjectIdentifier(stream)] = stream }
    }

    /// A stream or long poll that ended.
    func closed(_ stream: any Revocable, by hash: [UInt8]) {
        let key = Key(hash)
        state.withLock { s in
            s.streams[key]?[ObjectIdentifier(stream)] = nil
            if s.streams[key]?.isEmpty == true { s.streams[key] = nil }
            s._checkInvariantsAfterChange()
        }
    }

    /// The tokens that have streams or long polls open.
    var tokensWithStreams: [[UInt8]] { state.withLock { $0.streams.keys.map(\.bytes) } }

    /// Forgets the streams of a token no longer valid, and returns them (to be ended).
    func takeStreams(of hash: [UInt8]) -> [any Revocable] {
        state.withLock { Array(($0.streams.removeValue(forKey: Key(hash)) ?? [:]).values) }
    }

    /// Whether the token's last use should be written now: not within `interval` of the last write.
    func useIsDue(_ hash: [UInt8], interval: Duration, now: ContinuousClock.Instant = .now) -> Bool {
        let key = Key(hash)
        return state.withLock { s -> Bool in
            if let last = s.usesWritten[key], now - last < interval { return false }
            if s.usesWritten.count >= Self.capacity { s.usesWritten.removeAll() }
            s.usesWritten[key] = now
            s._checkInvariantsAfterChange()
            return true
        }
    }
}
