import Domain
import Testing

/// The settings in force: what is stored, else the default, decided in one
/// place for every reader (the shield, hooks, notifications, log level, `config`).
@Suite("Settings in force")
struct SettingsTests {
    @Test("nothing stored: every key has its default, the hooks inside the data directory; no log level is configured")
    func defaults() {
        let settings = Settings(stored: [:], dataDirectory: "/home/a/.local/share/retime")
        #expect(settings.shield == "auto" && settings.hostsFile == "/etc/hosts" && settings.defaultGroup == "focus")
        #expect(settings.hooksDirectory == "/home/a/.local/share/retime/hooks")
        #expect(settings.notifies && settings.logLevel == nil)
        #expect(settings.effective.map(\.key) == SettingKey.allCases && settings.effective.allSatisfy(\.isDefault))
    }

    @Test("what is stored wins, and says it was set; an unknown key is kept but never read")
    func stored() {
        let settings = Settings(stored: ["shield": "hosts", "notify": "off", "log.level": "debug", "hooks.dir": "/srv/hooks",
                                         "from.a.newer.retime": "x"],
                                dataDirectory: "/d")
        #expect(settings.shield == "hosts" && !settings.notifies && settings.logLevel == .debug && settings.hooksDirectory == "/srv/hooks")
        #expect(settings.isSet(.shield) && !settings.isSet(.defaultGroup))
        #expect(settings.effective.filter { !$0.isDefault }.map(\.key) == [.shield, .hooksDir, .notify, .logLevel])
        #expect(settings.effective.count == SettingKey.allCases.count)
    }

    @Test("a stored log level this retime does not know is no level: the root's default applies")
    func unknownLevel() {
        #expect(Settings(stored: ["log.level": "loud"], dataDirectory: "/d").logLevel == nil)
    }
}
