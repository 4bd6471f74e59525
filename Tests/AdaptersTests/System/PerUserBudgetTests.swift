import Adapters
import Foundation
import Synchronization
import Testing

@Suite("Each user's share of the service's slow work")
struct PerUserBudgetTests {
    @Test("a user past its burst is told when to ask again; another user's share is untouched; time refills it")
    func shares() {
        let clock = Mutex<TimeInterval>(100)
        let budget = PerUserBudget(burst: 3, every: 2, now: { clock.withLock { $0 } })
        for _ in 0..<3 { #expect(budget.take(for: 1_000) == nil) }
        let wait = budget.take(for: 1_000)
        #expect(wait != nil && wait! > 0 && wait! <= 2, "\(String(describing: wait))")
        for _ in 0..<3 { #expect(budget.take(for: 1_001) == nil, "another user's share") }
        clock.withLock { $0 += 2 }
        #expect(budget.take(for: 1_000) == nil, "one token back after its interval")
        #expect(budget.take(for: 1_000) != nil)
    }
}
