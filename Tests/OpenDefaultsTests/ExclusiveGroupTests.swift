import Foundation
import Testing
@testable import TestSupport

/// The test suite's own rule: the sync server's suites and the crash suites never run at once.
@Suite("ExclusiveGroup: two groups of suites never overlap", .reportsSeeds, .timeLimit(.minutes(10)))
struct ExclusiveGroupTests {
    @Test("40 entries of two groups at random: inside at once only one group, every entry admitted")
    func neverTogether() async {
        let room = ExclusiveGroup.Room()
        let seen = Counts()
        var random = SeededRandom()
        let plan = (0..<40).map { _ in (random.next() % 2 == 0 ? ExclusiveGroup.Name.servers : .crashes, Int(random.next() % 3)) }
        await withTaskGroup(of: Void.self) { group in
            for (name, millis) in plan {
                group.addTask {
                    await room.enter(name)
                    await seen.entered(name)
                    try? await Task.sleep(for: .milliseconds(millis))
                    await seen.left(name)
                    await room.leave()
                }
            }
        }
        #expect(await seen.overlaps == 0, "seed \(random.seed)")
        #expect(await seen.total == 40)
    }

    actor Counts {
        var inside: [ExclusiveGroup.Name: Int] = [:]
        var overlaps = 0
        var total = 0
        func entered(_ name: ExclusiveGroup.Name) {
            inside[name, default: 0] += 1
            total += 1
            if inside.values.filter({ $0 > 0 }).count > 1 { overlaps += 1 }
        }
        func left(_ name: ExclusiveGroup.Name) { inside[name, default: 0] -= 1 }
    }
}
