/// The whole command tree, and which type runs each leaf. Auth, reports
/// and import/export join here as their issues land.
enum CommandTree {
    static let leaves: [[String]: any RetimeCommand.Type] = [
        ["group", "create"]: GroupCommands.Create.self, ["group", "list"]: GroupCommands.List.self,
        ["group", "show"]: GroupCommands.Show.self, ["group", "rename"]: GroupCommands.Rename.self,
        ["group", "block"]: GroupCommands.Block.self, ["group", "unblock"]: GroupCommands.Unblock.self,
        ["group", "delete"]: GroupCommands.Delete.self, ["group", "set-allowance"]: AllowanceCommands.SetAllowance.self,
        ["allow"]: AllowanceCommands.Allow.self,
        ["start"]: SessionCommands.Start.self, ["stop"]: SessionCommands.Stop.self, ["cancel"]: SessionCommands.Cancel.self,
        ["pause"]: SessionCommands.Pause.self, ["resume"]: SessionCommands.Resume.self, ["next"]: SessionCommands.Next.self,
        ["keep-away"]: SessionCommands.KeepAway.self,
        ["status"]: StatusCommand.self, ["log"]: LogCommand.self, ["report"]: ReportCommand.self,
        ["export"]: ExportCommand.self, ["import"]: ImportCommand.self,
        ["track"]: HistoryEditCommands.Track.self, ["edit"]: HistoryEditCommands.Edit.self,
        ["delete"]: HistoryEditCommands.Delete.self, ["continue"]: HistoryEditCommands.Continue.self,
        ["undo"]: UndoCommand.self,
        ["config", "list"]: ConfigCommands.List.self, ["config", "get"]: ConfigCommands.Get.self,
        ["config", "set"]: ConfigCommands.Set.self, ["config", "unset"]: ConfigCommands.Unset.self,
        ["schedule", "add"]: ScheduleCommands.Add.self, ["schedule", "list"]: ScheduleCommands.List.self,
        ["schedule", "show"]: ScheduleCommands.Show.self,
        ["schedule", "remove"]: ScheduleCommands.Remove.self, ["schedule", "enable"]: ScheduleCommands.Enable.self,
        ["schedule", "disable"]: ScheduleCommands.Disable.self, ["schedule", "next"]: ScheduleCommands.Next.self,
        ["daemon", "run"]: DaemonCommands.Run.self, ["daemon", "status"]: DaemonCommands.Status.self,
        ["daemon", "install"]: DaemonCommands.Install.self, ["daemon", "uninstall"]: DaemonCommands.Uninstall.self,
        ["auth", "status"]: AuthCommands.Status.self, ["auth", "set-passcode"]: AuthCommands.SetPasscode.self,
        ["auth", "change-passcode"]: AuthCommands.ChangePasscode.self,
        ["auth", "remove-passcode"]: AuthCommands.RemovePasscode.self, ["auth", "request"]: AuthCommands.Request.self,
        ["system", "run"]: SystemCommands.Run.self, ["system", "status"]: SystemCommands.Status.self,
        ["system", "release"]: SystemCommands.Release.self, ["system", "install"]: SystemInstallCommands.Install.self,
        ["system", "uninstall"]: SystemInstallCommands.Uninstall.self, ["shield", "test"]: ShieldCommands.Test.self,
        ["sync", "status"]: SyncCommands.Status.self, ["device", "name"]: SyncCommands.Name.self,
        ["doctor"]: DoctorCommand.self, ["completion"]: CompletionCommand.self, ["help"]: HelpCommand.self,
        ["version"]: VersionCommand.self, ["man"]: ManCommand.self,
    ]

    static let root = CommandSpec(
        "retime", summary: "retime: focus sessions that block what distracts you.",
        subcommands: [
            GroupCommands.spec, SessionCommands.Start.spec, SessionCommands.Stop.spec, SessionCommands.Cancel.spec, SessionCommands.Pause.spec,
            SessionCommands.Resume.spec, SessionCommands.Next.spec, SessionCommands.KeepAway.spec, AllowanceCommands.Allow.spec, StatusCommand.spec, LogCommand.spec, ReportCommand.spec, ExportCommand.spec, ImportCommand.spec,
            HistoryEditCommands.Track.spec, HistoryEditCommands.Edit.spec, HistoryEditCommands.Delete.spec, HistoryEditCommands.Continue.spec, UndoCommand.spec, ScheduleCommands.spec, DaemonCommands.spec, SystemCommands.spec, ShieldCommands.spec,
            AuthCommands.spec, ConfigCommands.spec, SyncCommands.spec, SyncCommands.deviceSpec, DoctorCommand.spec,
            CompletionCommand.spec, HelpCommand.spec, VersionCommand.spec, ManCommand.spec,
        ])
}
