import Adapters
import Domain

/// `doctor`'s "settings" finding: whether the settings in force can be
/// read. A value of the wrong shape (`"notify": 5`, written by hand) makes
/// every command that needs the settings fail; the file itself parses, so
/// the data checks pass it, and this one names the key and the way out.
struct SettingsHealth: HealthInspector {
    /// Reads the settings as the commands do.
    let read: @Sendable () throws -> Settings

    func inspect(repairing: Bool) async -> [HealthCheck] {
        do {
            let settings = try read()
            let set = settings.stored.keys.filter { (try? SettingKey(parsing: $0)) != nil }.count
            return [HealthCheck(name: "settings", status: .ok, detail: set == 0 ? "all defaults" : "\(set) set, the rest defaults")]
        } catch let error as ResolutionError {
            guard case .factoryFailed(_, _, let underlying) = error else { return [Self.failed(error)] }
            return [Self.failed(underlying)]
        } catch {
            return [Self.failed(error)]
        }
    }

    private static func failed(_ error: any Error) -> HealthCheck {
        switch error {
        case StoreError.typeMismatch(let key, let reason):
            HealthCheck(name: "settings", status: .error,
                        detail: "'\(key)' is not a value retime reads (\(reason)); 'retime config unset \(key)' restores its default")
        default:
            HealthCheck(name: "settings", status: .error, detail: "\(error)")
        }
    }
}
