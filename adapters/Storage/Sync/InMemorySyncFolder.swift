import Domain
import FoundationEssentials
import Synchronization

/// `SyncFolder` in memory, for tests: a survey as given, the name and the
/// recorded seen map kept.
public final class InMemorySyncFolder: SyncFolder {
    private struct State {
        var name: String?
        var seen: [String: HybridTimestamp] = [:]
        var survey: SyncSurvey
    }

    private let id: String
    private let state: Mutex<State>

    public init(deviceID: String, survey: SyncSurvey? = nil) {
        id = deviceID
        state = Mutex(State(survey: survey ?? SyncSurvey(device: deviceID, devices: [SyncSurvey.Device(id: deviceID)])))
    }

    public func deviceID() throws -> String { id }
    public func deviceName() throws -> String? { state.withLock { $0.name } }
    public func setDeviceName(_ name: String) throws { state.withLock { $0.name = name } }

    public func survey() throws -> SyncSurvey {
        state.withLock { state in
            var survey = state.survey
            if let index = survey.devices.firstIndex(where: { $0.id == id }) {
                survey.devices[index].name = state.name
                survey.devices[index].seen = state.seen
            }
            return survey
        }
    }

    @discardableResult
    public func recordSeen(_ seen: [String: HybridTimestamp]) throws -> Bool {
        state.withLock { state in
            guard state.seen != seen else { return false }
            state.seen = seen
            return true
        }
    }
}
