/// A use case that brings the session up to date itself before its work
/// (`ActiveSession.reconcile`, with its own policy: `start` fails on a block
/// it cannot lift, the others warn), so a caller must not do it again.
/// The CLI's root reconciles before a command only when none of the
/// command's use cases is one of these: once per command, in one place.
public protocol ReconcilesSession {}

extension StartSessionUseCase: ReconcilesSession {}
extension StopSessionUseCase: ReconcilesSession {}
extension CancelSessionUseCase: ReconcilesSession {}
extension PauseSessionUseCase: ReconcilesSession {}
extension ResumeSessionUseCase: ReconcilesSession {}
extension SessionStatusUseCase: ReconcilesSession {}
