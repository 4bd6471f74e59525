import Adapters
import Domain
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The one registration both composition roots share: every port bound to
/// its adapter, every use case to its ports. A root adds only what differs
/// (its logger, and the daemon's services).
public enum ServiceRegistration {
    public static func shared(_ context: RuntimeContext) -> Registry {
        var registry = Registry()
        let data = context.dataDirectory, layout = context.layout, deviceID = context.deviceID
        registry.register(RuntimeContext.self, value: context)

        registry.register((any RetimeShared.Clock).self, value: SystemClock())
        registry.register((any KeyValueStore).self, lifetime: .singleton, teardown: { _ in context.store.forgetParsedSuites() }) { _ in context.store }
        registry.register((any GroupRepository).self, lifetime: .singleton) { StoreGroupRepository(store: try $0.resolve()) }
        registry.register((any SessionRepository).self, lifetime: .singleton) { StoreSessionRepository(store: try $0.resolve()) }
        registry.register((any SettingsStore).self, lifetime: .singleton) { StoreSettings(store: try $0.resolve()) }
        // The settings in force, read once per container: per command, and
        // per daemon build (a changed configuration rebuilds it).
        registry.register(Settings.self, lifetime: .singleton) { try StoreSettings.snapshot(of: $0.resolve(), dataDirectory: data) }
        registry.register((any ScheduleRepository).self, lifetime: .singleton) { StoreScheduleRepository(store: try $0.resolve()) }
        // The local zone is looked up when first read: only schedules and
        // reports need it.
        registry.register(IntervalCalendar.self, value: IntervalCalendar(lookingUp: { SystemTimeZone.current(context.environment).rules }))
        registry.register((any DeviceDirectory).self, lifetime: .singleton) {
            DataFolderDevices(thisDevice: { try deviceID.id() }, directory: layout.devices, clock: try $0.resolve())
        }
        registry.register((any AllowanceLedger).self, lifetime: .singleton) { StoreAllowanceLedger(store: try $0.resolve()) }
        registry.register {
            AllowanceBook(ledger: try $0.resolve(), devices: try $0.resolve(), clock: try $0.resolve(),
                          zone: { SystemTimeZone.current(context.environment).rules })
        }
        registry.register((any SessionHistory).self, lifetime: .singleton) { resolver in
            JSONLinesSessionHistory(directory: layout.history, deviceID: { try deviceID.id() },
                                    logger: try resolver.resolve(Logger.self).labelled("retime.history"))
        }
        // Reports' summaries of sealed months, kept in this device's own
        // folder (a cache: docs/history.md, "Reports from summaries").
        registry.register((any HistorySummaryStore).self, lifetime: .singleton) { _ in
            FileHistorySummaryStore(deviceFolder: { try? context.device().root })
        }
        // Ending a session sees the same history through the Session context's port.
        registry.register((any SessionArchive).self) { try $0.resolve((any SessionHistory).self) }
        registry.register((any HistoryJournal).self, lifetime: .singleton) { _ in
            JSONLinesHistoryJournal(directory: layout.history, deviceID: { try deviceID.id() })
        }
        registry.register((any SyncFolder).self, value: FileSyncFolder(root: data, deviceID: { try deviceID.id() }))
        registry.register { SyncStatusUseCase(folder: try $0.resolve(), devices: try $0.resolve(), clock: try $0.resolve()) }
        registry.register { DeviceNameUseCase(folder: try $0.resolve()) }
        registry.register(ConfiguredShields.self, lifetime: .singleton) { resolver in
            ConfiguredShields(store: try resolver.resolve(), settings: Result { try resolver.resolve(Settings.self) },
                              logger: try resolver.resolve(Logger.self).labelled("retime.shield"),
                              dataDirectory: data, socketPath: context.shieldSocket, thisDevice: { try? deviceID.id() })
        }
        registry.register((any ShieldDirectory).self) { try $0.resolve(ConfiguredShields.self) }
        registry.register((any EnforcerPasscodes).self) { try $0.resolve(ConfiguredShields.self).enforcerPasscodes }
        registry.register((any ShieldAuthorizationProbe).self) { try $0.resolve(ConfiguredShields.self).configuredProbe() }
        registry.register((any ShieldInspector).self) { try $0.resolve(ConfiguredShields.self).inspector() }
        // Teardowns close what the services opened, in reverse order of
        // registration, when a command or the daemon ends.
        // This machine's files are in its own folder (`devices/<id>/`), whose
        // id is read when one of them is first needed.
        registry.register((any Tracker).self, lifetime: .singleton, teardown: { ($0 as? JSONLinesTracker)?.file.close() }) { _ in
            JSONLinesTracker(file: RotatingFile(path: try context.device().events))
        }
        // A device id that cannot be read (damaged: doctor's to report and
        // mend) leaves only the old place to look in, rather than fail
        // `status` and doctor.
        registry.register((any DaemonPresence).self) { _ in
            guard let device = try? context.device() else { return DaemonLock(path: layout.legacyDaemonLock) }
            return DaemonLock(path: device.daemonLock, legacyPath: layout.legacyDaemonLock)
        }
        // What the machine says about its user (away time): logind's sleep,
        // lock and idle on the system bus, and the Wayland compositor's own
        // idle time beside it, which the daemon follows and `doctor` asks
        // after; the clocks tell of suspended time anyway.
        #if os(Linux)
        registry.register((any PresenceSignals).self, value: CombinedPresenceSignals([LogindPresenceSignals(environment: context.environment),
                                                                                      WaylandIdlePresenceSignals(environment: context.environment)]))
        #else
        registry.register((any PresenceSignals).self, value: UnavailablePresenceSignals(reason: "logind is Linux's"))
        #endif
        registry.register {
            RecordPresenceUseCase(sessions: try $0.resolve(), clock: try $0.resolve())
        }
        // The managers `daemon install` hands its definition to, by name.
        registry.register((any LoginServiceManager).self, name: ServiceManager.systemd.rawValue,
                          value: SystemdUserManager(environment: context.environment))
        registry.register((any LoginServiceManager).self, name: ServiceManager.launchd.rawValue,
                          value: ManualLoginService.launchd(label: ServiceManager.launchdLabel))
        registry.register((any DataLock).self, value: FileDataLock(storeDirectory: layout.store))
        registerEventDelivery(into: &registry, context: context)
        // The passcode is every device's (devices/<id>/passcode.json); the
        // lockout and the shield's authorization stay this machine's.
        registry.register((any AuthStateStore).self) { _ in
            SharedAuthState.dataFolder(store: context.store, devices: layout.devices,
                                       deviceID: { try context.store.device?.id() ?? deviceID.id() })
        }
        #if os(Linux)
        registry.register((any PasscodeHasher).self, value: CryptPasscodeHasher())
        #else
        registry.register((any PasscodeHasher).self, value: PBKDF2PasscodeHasher())
        #endif
        registry.register((any AuditTrail).self, lifetime: .singleton) { _ in JSONLinesAuditTrail(path: try context.device().audit) }

        // Bridges: each context asks the other through a port of its own.
        registry.register((any SessionGroupLookup).self) { GroupRepositoryLookup(groups: try $0.resolve()) }
        registry.register((any GroupLock).self) { StrictSessionLock(sessions: try $0.resolve(), clocks: try $0.resolve()) }
        registry.register((any StrictSessionQuery).self) { StrictSessionLock(sessions: try $0.resolve(), clocks: try $0.resolve()) }
        // Which clock judges which session: this machine's, or, for one
        // started on a device whose clock disagrees, that device's.
        registry.register { SessionClocks(clock: try $0.resolve(), devices: try $0.resolve()) }
        registry.register((any StrictOverride).self) { PasscodeOverride(verify: try $0.resolve()) }
        registry.register((any ImportGroupDirectory).self) {
            GroupRepositoryImportDirectory(groups: try $0.resolve(), clock: try $0.resolve())
        }
        registry.register((any GroupUsageQuery).self) {
            SessionGroupUsage(sessions: try $0.resolve(), schedules: try $0.resolve(), clock: try $0.resolve())
        }

        registerUseCases(into: &registry)
        registerAuthUseCases(into: &registry)
        return registry
    }

    /// Hooks from `hooks.dir`, desktop notifications when `notify` is on
    /// (and notify-send and a session bus are there), and the publisher
    /// that feeds them; built when a use case that publishes is, reading
    /// their settings then (a setting that cannot be read means its
    /// default). Hooks and notify-send get the environment the process was
    /// given (read once at start: ProcessInfo's copy costs 0.1 ms).
    private static func registerEventDelivery(into registry: inout Registry, context: RuntimeContext) {
        let data = context.dataDirectory, environment = context.environment
        @Sendable func settings(_ resolver: Resolver) -> Settings {
            (try? resolver.resolve(Settings.self)) ?? Settings(stored: [:], dataDirectory: data)
        }
        registry.register((any EventHooks).self, lifetime: .singleton) { resolver in
            ProcessEventHooks(directory: settings(resolver).hooksDirectory, logPath: try context.device().hooksLog, environment: environment,
                              logger: try resolver.resolve(Logger.self).labelled("retime.hooks"))
        }
        registry.register((any Notifier)?.self, lifetime: .singleton) { resolver in
            settings(resolver).notifies ? NotifySendNotifier.make(logPath: try context.device().hooksLog, environment: environment) : nil
        }
        registry.register {
            SessionEventPublisher(tracker: try $0.resolve(), hooks: try $0.resolve(), notifier: try $0.resolve((any Notifier)?.self),
                                  groups: try $0.resolve(), logger: try $0.resolve(Logger.self).labelled("retime.events"))
        }
    }

    private static func registerAuthUseCases(into registry: inout Registry) {
        registry.register {
            VerifyPasscodeUseCase(state: try $0.resolve(), hasher: try $0.resolve(), audit: try $0.resolve(), clock: try $0.resolve(),
                                  enforcer: try $0.resolve((any EnforcerPasscodes).self))
        }
        registry.register {
            SetPasscodeUseCase(state: try $0.resolve(), hasher: try $0.resolve(), audit: try $0.resolve(), clock: try $0.resolve(),
                               strict: try $0.resolve(), dataLock: try $0.resolve(), enforcer: try $0.resolve())
        }
        registry.register {
            ChangePasscodeUseCase(state: try $0.resolve(), hasher: try $0.resolve(), audit: try $0.resolve(), clock: try $0.resolve(),
                                  dataLock: try $0.resolve(), enforcer: try $0.resolve())
        }
        registry.register {
            AuthStatusUseCase(state: try $0.resolve(), clock: try $0.resolve(), enforcer: try $0.resolve((any EnforcerPasscodes).self))
        }
        registry.register {
            RequestShieldAuthorizationUseCase(state: try $0.resolve(), probe: try $0.resolve(), clock: try $0.resolve())
        }
    }

    private static func registerUseCases(into registry: inout Registry) {
        registry.register { CreateGroupUseCase(groups: try $0.resolve(), clock: try $0.resolve()) }
        registry.register {
            RenameGroupUseCase(groups: try $0.resolve(), lock: try $0.resolve(), override: try $0.resolve(), clock: try $0.resolve(),
                               dataLock: try $0.resolve())
        }
        registry.register((any GroupTargetsObserver).self) { ShieldRefreshOnTargetChange(refresh: try $0.resolve()) }
        registry.register {
            BlockTargetsUseCase(groups: try $0.resolve(), clock: try $0.resolve(), dataLock: try $0.resolve(),
                                observer: try $0.resolve((any GroupTargetsObserver).self))
        }
        registry.register {
            UnblockTargetsUseCase(groups: try $0.resolve(), lock: try $0.resolve(), override: try $0.resolve(), clock: try $0.resolve(),
                                  dataLock: try $0.resolve(), observer: try $0.resolve((any GroupTargetsObserver).self))
        }
        registry.register {
            DeleteGroupUseCase(groups: try $0.resolve(), lock: try $0.resolve(), override: try $0.resolve(), usage: try $0.resolve(),
                               dataLock: try $0.resolve())
        }
        registry.register((any BackupEncoder).self, value: RetimeExportEncoder())
        registry.register((any HistoryImportSource).self, name: "watson", value: WatsonFramesSource())
        registry.register((any HistoryImportSource).self, name: "timewarrior", value: TimewarriorSource())
        registry.register((any HistoryImportSource).self, name: "retime", value: RetimeExportSource())
        registry.register {
            ExportHistoryUseCase(history: try $0.resolve(), groups: try $0.resolve(), schedules: try $0.resolve(), settings: try $0.resolve(),
                                 clock: try $0.resolve())
        }
        registry.register {
            ReadSettingsUseCase(settings: try $0.resolve(), dataDirectory: try $0.resolve(RuntimeContext.self).dataDirectory)
        }
        registry.register {
            ConfigureSettingUseCase(settings: try $0.resolve(), strict: try $0.resolve(), override: try $0.resolve(), dataLock: try $0.resolve(),
                                    reading: try $0.resolve())
        }
        registry.register {
            ActiveSession(sessions: try $0.resolve(), groups: try $0.resolve(), history: try $0.resolve(), shields: try $0.resolve(),
                          clock: try $0.resolve(), devices: try $0.resolve(), events: try $0.resolve(),
                          logger: try $0.resolve(Logger.self).labelled("retime.session"))
        }
        registry.register {
            StartSessionUseCase(sessions: try $0.resolve(), groups: try $0.resolve(), shields: try $0.resolve(),
                                clock: try $0.resolve(), events: try $0.resolve(), active: try $0.resolve(),
                                dataLock: try $0.resolve(), settings: try $0.resolve((any SettingsStore).self),
                                creator: try $0.resolve((any ImportGroupDirectory).self), devices: try $0.resolve((any DeviceDirectory).self))
        }
        registry.register {
            StopSessionUseCase(sessions: try $0.resolve(), groups: try $0.resolve(), history: try $0.resolve(), shields: try $0.resolve(),
                               events: try $0.resolve(), active: try $0.resolve(),
                               override: try $0.resolve(), unlock: try $0.resolve(StrictUnlock.self))
        }
        registry.register {
            StrictUnlock(settings: try $0.resolve((any SettingsStore).self), override: try $0.resolve(), sessions: try $0.resolve(),
                         shields: try $0.resolve(), clocks: try $0.resolve(), events: try $0.resolve(),
                         logger: try $0.resolve(Logger.self).labelled("retime.unlock"))
        }
        registry.register {
            CancelSessionUseCase(sessions: try $0.resolve(), groups: try $0.resolve(), shields: try $0.resolve(),
                                 active: try $0.resolve(), override: try $0.resolve(), unlock: try $0.resolve(StrictUnlock.self))
        }
        registry.register {
            PauseSessionUseCase(sessions: try $0.resolve(), groups: try $0.resolve(), shields: try $0.resolve(),
                                events: try $0.resolve(), active: try $0.resolve(), override: try $0.resolve(),
                                unlock: try $0.resolve(StrictUnlock.self))
        }
        registry.register {
            ResumeSessionUseCase(sessions: try $0.resolve(), groups: try $0.resolve(), shields: try $0.resolve(),
                                 events: try $0.resolve(), active: try $0.resolve())
        }
        registry.register {
            AllowUseCase(sessions: try $0.resolve(), groups: try $0.resolve(), active: try $0.resolve(), book: try $0.resolve())
        }
        registry.register {
            SetAllowanceUseCase(groups: try $0.resolve(), lock: try $0.resolve(), clock: try $0.resolve(), dataLock: try $0.resolve())
        }
        registry.register {
            KeepAwayUseCase(sessions: try $0.resolve(), clock: try $0.resolve(), active: try $0.resolve())
        }
        registry.register {
            NextPhaseUseCase(sessions: try $0.resolve(), groups: try $0.resolve(), active: try $0.resolve())
        }
        registry.register {
            RefreshShieldUseCase(sessions: try $0.resolve(), groups: try $0.resolve(), shields: try $0.resolve(), history: try $0.resolve())
        }
        registry.register(AddScheduleUseCase.self) {
            AddScheduleUseCase(schedules: try $0.resolve(), groups: try $0.resolve(), dataLock: try $0.resolve(), clock: try $0.resolve((any RetimeShared.Clock).self))
        }
        registry.register {
            DaemonOutlookUseCase(daemon: try $0.resolve(), sessions: try $0.resolve(), upcoming: try $0.resolve(), clock: try $0.resolve())
        }
        registry.register(ListSchedulesUseCase.self) {
            ListSchedulesUseCase(schedules: try $0.resolve(), groups: try $0.resolve(), clock: try $0.resolve((any RetimeShared.Clock).self))
        }
        registry.register {
            SessionLogUseCase(history: try $0.resolve(), groups: try $0.resolve(), clock: try $0.resolve())
        }
        registry.register {
            ChangeScheduleUseCase(schedules: try $0.resolve(), dataLock: try $0.resolve(), clock: try $0.resolve(), calendar: try $0.resolve(),
                                  override: try $0.resolve())
        }
        registry.register {
            UpcomingEventsUseCase(schedules: try $0.resolve(), calendar: try $0.resolve(), clock: try $0.resolve())
        }
        registry.register {
            ReportUseCase(history: try $0.resolve(), groups: try $0.resolve(), calendar: try $0.resolve(),
                          summaries: try $0.resolve((any HistorySummaryStore).self), clock: try $0.resolve((any Clock).self))
        }
        registry.register {
            ImportHistoryUseCase(history: try $0.resolve(), directory: try $0.resolve(), active: try $0.resolve(),
                                 schedules: try $0.resolve((any ScheduleRepository).self), settings: try $0.resolve((any SettingsStore).self),
                                 clock: try $0.resolve((any Clock).self), journal: try $0.resolve((any HistoryJournal).self),
                                 dataLock: try $0.resolve((any DataLock).self))
        }
        registry.register {
            TrackSessionUseCase(history: try $0.resolve(), groups: try $0.resolve(), clock: try $0.resolve(),
                                journal: try $0.resolve((any HistoryJournal).self), dataLock: try $0.resolve((any DataLock).self))
        }
        registry.register {
            EditSessionUseCase(history: try $0.resolve(), groups: try $0.resolve(), clock: try $0.resolve(),
                               journal: try $0.resolve((any HistoryJournal).self), dataLock: try $0.resolve((any DataLock).self))
        }
        registry.register {
            DeleteSessionUseCase(history: try $0.resolve(), clock: try $0.resolve(), journal: try $0.resolve((any HistoryJournal).self),
                                 dataLock: try $0.resolve((any DataLock).self))
        }
        registry.register {
            UndoHistoryChangeUseCase(history: try $0.resolve(), journal: try $0.resolve(), dataLock: try $0.resolve(), clock: try $0.resolve())
        }
        registry.register {
            ContinueSessionUseCase(history: try $0.resolve(), groups: try $0.resolve(), start: try $0.resolve())
        }
        registry.register {
            TestShieldUseCase(sessions: try $0.resolve(), groups: try $0.resolve(), inspector: try $0.resolve())
        }
        registry.register {
            SessionStatusUseCase(sessions: try $0.resolve(), active: try $0.resolve(),
                                 groups: try $0.resolve((any SessionGroupLookup).self), shields: try $0.resolve((any ShieldDirectory).self),
                                 devices: try $0.resolve((any DeviceDirectory).self), book: try $0.resolve(AllowanceBook.self))
        }
    }
}

extension Logger {
    /// The same handler under another label.
    func labelled(_ label: String) -> Logger { Logger(label: label, handler: handler) }
}
