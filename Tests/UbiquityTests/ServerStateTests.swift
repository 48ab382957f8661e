import PropertyList
import SharedTables
import Synchronization
import Testing
import TestSupport
import UbiquityBackend
import UbiquityProtocol
@testable import UbiquityServer

/// The sync server's shared state against models, through seeded random operations, with its
/// invariants (`TokenBook+Invariants.swift`, `ChangeHub+Invariants.swift`) checked after each.
@Suite("The server's shared state keeps its invariants", .reportsSeeds, .timeLimit(.minutes(10)))
struct ServerStateTests {
    final class Stream: Revocable {
        func end() {}
    }

    @Test("TokenBook: accounts follow the generation, streams their tokens, through 3,000 random steps")
    func tokenBook() {
        var random = SeededRandom()
        let book = TokenBook()
        let hashes = (0..<6).map { [UInt8]([UInt8($0)]) }
        var accounts: [[UInt8]: String] = [:]
        var generation: Int64? = nil
        var streams: [[UInt8]: [Stream]] = [:]
        for step in 0..<3_000 {
            let hash = hashes[Int(random.next() % UInt64(hashes.count))]
            switch random.next() % 6 {
            case 0:
                let now = Int64(random.next() % 3)
                let moved = book.moveGeneration(to: now)
                #expect(moved == (generation != nil && generation != now), "step \(step), seed \(random.seed)")
                if moved { accounts.removeAll() }
                generation = now
            case 1:
                // Checked against the current generation, or a stale one (a revocation came meanwhile).
                let checked: Int64? = random.next() % 3 == 0 ? Int64(random.next() % 3) : generation
                let name = "account\(step)"
                book.remember(UbiquityAccountInfo(name: name, id: name), for: hash, checkedAt: checked)
                if checked != nil, checked == generation { accounts[hash] = name }
            case 2:
                book.forget(hash)
                accounts[hash] = nil
            case 3:
                let stream = Stream()
                book.opened(stream, by: hash)
                streams[hash, default: []].append(stream)
            case 4:
                if let stream = streams[hash]?.popLast() {
                    book.closed(stream, by: hash)
                    if streams[hash]?.isEmpty == true { streams[hash] = nil }
                }
            default:
                let taken = book.takeStreams(of: hash)
                #expect(taken.count == (streams[hash]?.count ?? 0), "step \(step), seed \(random.seed)")
                streams[hash] = nil
            }
            book._checkInvariants()
            for h in hashes { #expect(book.account(h)?.name == accounts[h], "step \(step), seed \(random.seed)") }
            #expect(Set(book.tokensWithStreams) == Set(streams.keys), "step \(step), seed \(random.seed)")
            #expect(book.generation == generation)
        }
    }

    @Test("ChangeHub: watchers and streams are filed by store and let go when answered, through 3,000 random steps")
    func changeHub() {
        var random = SeededRandom()
        let hub = ChangeHub()
        let stores = ["a", "b", "c"]
        var tickets: [String: [ChangeHub.Ticket]] = [:]
        var streams: [String: [StreamSubscription]] = [:]
        var revisions: [String: Int64] = [:]
        for step in 0..<3_000 {
            let store = stores[Int(random.next() % UInt64(stores.count))]
            switch random.next() % 7 {
            case 0: tickets[store, default: []].append(hub.subscribe(account: "acct", store: store))
            case 1:
                if let t = tickets[store]?.popLast() { hub.cancel(t) }
            case 2: streams[store, default: []].append(hub.openStream(account: "acct", stores: [store]))
            case 3:
                if let s = streams[store]?.popLast() { hub.closeStream(s) }
            case 4:
                // A commit of this server: its watchers are answered (and let go).
                let stamp = hub.stamp(account: "acct", store: store)
                let revision = (revisions[store] ?? 0) + 1
                revisions[store] = revision
                hub.published(account: "acct", store: store, revision: revision, since: stamp) { ChangeHub.Commit(store: store, revision: revision, encoded: []) }
                tickets[store] = nil
            case 5:
                // Another server's commit: the watchers read again unless this revision is known here.
                let revision = (revisions[store] ?? 0) + Int64(random.next() % 2)
                revisions[store] = revision
                let known = hub.knownRevision(account: "acct", store: store)
                hub.wake(.store(account: "acct", store: store, revision: revision))
                if !(known.map { $0 >= revision } ?? false) { tickets[store] = nil }
            default:
                if random.next() % 10 == 0 {
                    hub.wake(.everything)
                    tickets.removeAll()
                } else {
                    let stamp = hub.stamp(account: "acct", store: store)
                    hub.note(account: "acct", store: store, revision: revisions[store] ?? 0, since: stamp)
                }
            }
            hub._checkInvariants()
            let expected = tickets.values.reduce(0) { $0 + $1.count } + streams.values.reduce(0) { $0 + $1.count }
            #expect(hub.waiting == expected, "step \(step), seed \(random.seed)")
        }
    }

    @Test("FleetMonitor: the machines counted current follow publications and reports, through 3,000 random steps")
    func fleetMonitor() {
        var random = SeededRandom()
        let monitor = FleetMonitor()
        let groups = ["a", "b"]
        var published: [String: Int64] = [:]
        var applied: [String: [String: Int64]] = [:]
        for step in 0..<3_000 {
            let group = groups[Int(random.next() % 2)]
            if random.next() % 8 == 0 {
                // A publication: any revision (a server may carry an older one after a restore).
                let revision = Int64(random.next() % 6)
                let entry = UbiquityWireEntry(key: UbiquityFleetNames.revisionKey, revision: 1,
                                              value: UbiquityWireValue.encode(.integer(.init(revision))))
                monitor.applied([entry], store: UbiquityFleetNames.policyStore(group: group), organization: "o", token: nil)
                published[group] = revision
            } else {
                let machine = "m\(random.next() % 40)"
                let revision = Int64(random.next() % 6)
                let report: [LiteralString: PropertyList] = [
                    "Groups": .dictionary([LiteralString(group): .dictionary(["Revision": .integer(.init(revision))])]),
                ]
                monitor.reported(report, machine: machine, organization: "o")
                applied[group, default: [:]][machine] = revision
            }
            monitor._checkInvariants()
            for g in groups {
                let kept = monitor.state.withLock { $0.current[FleetMonitor.Group(organization: "o", group: g)] }
                if let p = published[g] {
                    #expect(kept ?? 0 == (applied[g] ?? [:]).values.filter { $0 >= p }.count, "step \(step), seed \(random.seed)")
                }
            }
        }
    }
}
