public import Testing

/// Suites that must not run beside suites of another group: the sync
/// server's (real servers and databases, streams with deadlines), the
/// crash suites (hundreds of processes killed mid-write, a writer that never
/// pauses; and the real browsers, as heavy), and the suites that count this process's own descriptors
/// (which the server suites' in-process stores and clients would change). Suites of one group run together; a suite of the other group
/// waits until none of the first is running. Other suites are not held.
///
/// Run together on two cores, the crash suites starved the servers (a
/// stream's first answer waited 30 s); this keeps them apart inside one
/// `swift test`, so the README's test command is plain `swift test`.
///
/// ```swift
/// @Suite("ubiquity serve: …", .exclusive(.servers)) struct ServerTests { … }
/// ```
public struct ExclusiveGroup: SuiteTrait, TestScoping {
    public enum Name: Sendable, Hashable {
        case servers, crashes, processResources
    }

    let name: Name

    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await Room.shared.enter(name)
        do {
            try await function()
        } catch {
            await Room.shared.leave()
            throw error
        }
        await Room.shared.leave()
    }

    /// Who is in, and who waits.
    actor Room {
        static let shared = Room()
        private var occupant: Name?
        private var inside = 0
        private var waiting: [(Name, CheckedContinuation<Void, Never>)] = []

        func enter(_ name: Name) async {
            if occupant == nil || occupant == name {
                occupant = name
                inside += 1
                return
            }
            await withCheckedContinuation { waiting.append((name, $0)) }
        }

        func leave() {
            inside -= 1
            guard inside == 0 else { return }
            occupant = nil
            guard let next = waiting.first?.0 else { return }
            occupant = next
            let admitted = waiting.filter { $0.0 == next }
            waiting.removeAll { $0.0 == next }
            inside = admitted.count
            for (_, continuation) in admitted { continuation.resume() }
        }
    }
}

extension Trait where Self == ExclusiveGroup {
    /// Runs the suite apart from suites of the other ``ExclusiveGroup/Name``.
    public static func exclusive(_ name: ExclusiveGroup.Name) -> Self { ExclusiveGroup(name: name) }
}
