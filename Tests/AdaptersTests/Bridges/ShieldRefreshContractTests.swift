import Adapters
import Domain
import Foundation
import PortContracts
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The Group context's `GroupTargetsObserver`, answered by the Session
/// context's block refresh.
@Suite("The block-refreshing observer keeps the GroupTargetsObserver contract")
struct ShieldRefreshContractTests {
    @Test(arguments: GroupTargetsObserverContract.checks)
    func shieldRefresh(_ check: ContractCheck<GroupTargetsObserverContract.Factory>) async throws {
        try await check.run {
            let groups = InMemoryGroupRepository()
            let group = Fixtures.group("work", targets: ["first.example.com"])
            try await groups.insert(group)
            let sessions = InMemorySessionRepository(Fixtures.session(group: group.id))
            let shield = InMemoryShield()
            let refresh = RefreshShieldUseCase(sessions: sessions, groups: GroupRepositoryLookup(groups: groups), shields: FixedShieldDirectory(shield),
                                               history: InMemorySessionHistory())
            return .init(observer: ShieldRefreshOnTargetChange(refresh: refresh), group: group.id, setTargets: { targets in
                var changed = try await groups.group(id: group.id)!
                try changed.remove(changed.targets)
                _ = changed.add(targets)
                try await groups.update(changed)
            }, blocked: { try await shield.state()?.targets })
        }
    }
}
