/// Shows a desktop notification for an event. Fire and forget, like the
/// hooks: a notification that cannot be shown is dropped, never an error.
public protocol Notifier: Sendable {
    func notify(_ event: SessionEvent)
}
