import Domain
import Synchronization

/// A value built on first use, once. Hooks and the notifier read their
/// settings when built; most commands publish no event, so building them
/// eagerly would cost every command a store read for nothing.
final class Deferred<Value: Sendable>: Sendable {
    private let make: @Sendable () -> Value
    private let built = Mutex<Value?>(nil)

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    var value: Value {
        built.withLock { built in
            if let value = built { return value }
            let value = make()
            built = value
            return value
        }
    }
}

/// Hooks built on the first event.
struct DeferredEventHooks: EventHooks {
    let hooks: Deferred<any EventHooks>
    func run(_ event: SessionEvent) { hooks.value.run(event) }
    func listens(to kind: SessionEvent.Kind) -> Bool { hooks.value.listens(to: kind) }
}

/// A notifier built on the first notification.
struct DeferredNotifier: Notifier {
    let notifier: Deferred<any Notifier>
    func notify(_ event: SessionEvent) { notifier.value.notify(event) }
}
