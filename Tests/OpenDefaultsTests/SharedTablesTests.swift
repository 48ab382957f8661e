import PlatformIO
import SharedTables
import Testing
import TestSupport

/// The one observer table and the two tables of weakly held objects that
/// every layer uses (instead of a hand-written copy each).
@Suite("Observer lists and weak tables", .reportsSeeds, .timeLimit(.minutes(10)))
struct SharedTablesTests {
    @Test("an observer list against a model: handlers in the order added, each id removes its own once (seeded)")
    func observerListModel() {
        var random = SeededRandom()
        var list = ObserverList<@Sendable () -> Int>()
        var model: [(id: UInt64, value: Int)] = []
        for step in 0..<2_000 {
            if model.isEmpty || random.next() % 3 != 0 {
                let value = step
                let id = list.add { value }
                // Ids increase: a new one is above every id given before.
                #expect(model.last.map { $0.id < id } ?? true, "seed \(random.seed): id \(id) given again")
                model.append((id, value))
            } else {
                let index = Int(random.next() % UInt64(model.count))
                let id = model.remove(at: index).id
                let removed = list.remove(id), again = list.remove(id)
                #expect(removed, "seed \(random.seed): \(id) was there")
                #expect(!again, "seed \(random.seed): \(id) removed twice")
            }
            if step % 97 == 0 {
                list._checkInvariants()
                #expect(list.handlers.map { $0() } == model.map(\.value), "seed \(random.seed), step \(step)")
            }
        }
        #expect(list.count == model.count)
        let absent = list.remove(UInt64.max)
        #expect(!absent)
    }

    @Test("a registry says it is empty without its lock, and a handler removed is not called")
    func registry() {
        let registry = ObserverRegistry<@Sendable () -> Int>()
        #expect(registry.isEmpty && registry.handlers.isEmpty)
        let one = registry.add { 1 }
        let two = registry.add { 2 }
        #expect(registry.handlers.map { $0() } == [1, 2])
        registry.remove(one)
        registry.remove(one)
        #expect(registry.handlers.map { $0() } == [2])
        registry.remove(two)
        #expect(registry.isEmpty)
    }

    final class Thing: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    @Test("a weak cache shares one object per key while it lives, makes a new one after, and never keeps one alive")
    func weakCache() {
        let cache = WeakCache<String, Thing>()
        var made = 0
        var first: Thing? = cache.object("a") { made += 1; return Thing("a1") }.object
        let again = cache.object("a") { made += 1; return Thing("a2") }
        #expect(again.object === first && !again.made && made == 1)
        weak let gone = first
        first = nil
        _ = again
        #expect(cache.existing("a") == nil || gone != nil)
        let fresh = cache.object("x") { Thing("x") }
        #expect(fresh.made)
        // Many short-lived objects: the table does not hold them.
        for i in 0..<1_000 { _ = cache.object("k\(i)") { Thing("k\(i)") } }
        #expect(cache.objects.count <= 2)
    }

    @Test("a weak-keyed table keeps a value per live owner, and a new owner never inherits a dead one's value")
    func weakKeyed() {
        let table = WeakKeyedTable<Thing, Thing>()
        let owner = Thing("owner")
        let value = table.value(for: owner) { Thing("v1") }
        #expect(table.value(for: owner) { Thing("v2") } === value)
        for i in 0..<1_000 {
            let transient = Thing("t\(i)")
            #expect(table.value(for: transient) { Thing("fresh") }.name == "fresh")
        }
        #expect(table.value(for: owner) { Thing("v3") } === value)
    }

    @Test("an attachment slot makes its object once, keeps it while the slot lives, and lets it go with the slot")
    func attachmentSlot() async {
        weak var kept: Thing?
        do {
            let slot = AttachmentSlot()
            let first = slot.value(as: Thing.self) { Thing("first") }
            #expect(slot.value(as: Thing.self) { Thing("second") } === first)
            kept = first
        }
        #expect(kept == nil)
        // Threads racing to fill one slot all get the one object kept; the losers' objects are freed.
        let slot = AttachmentSlot()
        let made = Locked(0)
        let seen = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for i in 0..<8 {
                group.addTask { ObjectIdentifier(slot.value(as: Thing.self) { made.mutate { $0 += 1 }; return Thing("t\(i)") }) }
            }
            var all = Set<ObjectIdentifier>()
            for await id in group { all.insert(id) }
            return all
        }
        #expect(seen.count == 1 && made.value >= 1)
    }
}

/// The one lookup of the user's base folders (XDG Base Directory Specification).
@Suite("User directories", .timeLimit(.minutes(10)))
struct UserDirectoriesTests {
    @Test("an absolute XDG variable is taken; unset, empty or relative falls back to the home folder's")
    func lookup() {
        #expect(UserDirectories.config(in: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/etc/xdg-ada"]) == "/etc/xdg-ada")
        #expect(UserDirectories.config(in: ["HOME": "/home/ada"]) == "/home/ada/.config")
        #expect(UserDirectories.config(in: ["HOME": "/home/ada", "XDG_CONFIG_HOME": ""]) == "/home/ada/.config")
        #expect(UserDirectories.data(in: ["HOME": "/home/ada/", "XDG_DATA_HOME": "relative/share"]) == "/home/ada/.local/share")
        #expect(UserDirectories.data(in: ["HOME": "/", "XDG_DATA_HOME": "/srv/data"]) == "/srv/data")
        #expect(UserDirectories.data(in: ["HOME": "/"]) == "/.local/share")
        // No HOME: the password database's home folder.
        let fallback = UserDirectories.home(in: [:])
        #expect(fallback.hasPrefix("/"))
        #expect(UserDirectories.config(in: [:]) == (fallback.hasSuffix("/") ? fallback : fallback + "/") + ".config")
    }
}
