/// What to do next after a domain failure, for the `hint:` line: the domain
/// says what went wrong; the CLI knows the commands that mend it.
enum ErrorHints {
    static func hint(forCode code: String) -> String? {
        switch code {
        case "session.alreadyActive": "see it with 'retime status'; end it with 'retime stop'"
        case "session.notActive": "start one with 'retime start [GROUP] --for DURATION'; 'retime log --limit 1' shows the last one"
        case "session.alreadyPaused": "carry on with 'retime resume'"
        case "session.notPaused": "take a break with 'retime pause'"
        case "session.strictUntilFarAhead": "to mean it, give the date too: --until 'YYYY-MM-DD HH:MM'"
        case "session.strict": "with no passcode set, a strict session ends only at its planned end"
        case "group.notFound": "'retime group list' shows your groups; 'retime group create NAME' makes one"
        case "group.inUse": "first remove its schedules ('retime schedule remove NAME') and end its session ('retime stop')"
        case "shield.failed": "'retime doctor' checks the files the shield uses"
        case "shield.notPermitted":
            "the system service blocks for users who may not: 'sudo retime system install', then 'retime config set shield auto'"
        case "system.unreachable":
            "'retime doctor' says whether the service is installed; as root, 'systemctl status retime-shield' shows why it does not answer"
        case "shield.notLifted":
            "retime tries again with every command: once the cause is fixed, 'retime status' lifts it; 'retime doctor' shows what is up"
        case "history.notWritten":
            "the session is kept and written to history by the first command after the cause is mended; 'retime doctor' shows what is up, 'retime doctor --repair' mends a damaged file"
        case "store.notRegularFile":
            "'retime doctor' names every such file; 'retime doctor --repair' moves it aside (a store file's newest backup is restored)"
        case "schedule.notFound": "'retime schedule list' shows your schedules"
        case "store.corrupted", "store.typeMismatch":
            "'retime doctor' checks every file; 'retime doctor --repair' moves a damaged one aside and puts back what it can: its readable part and its last good copy or backup, where there is one, saying what is lost"
        default: nil
        }
    }
}
