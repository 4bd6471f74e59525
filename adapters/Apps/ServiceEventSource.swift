/// Something the system service's loop waits on besides requests and
/// deadlines: a descriptor to poll (-1 while it has nothing to wait for),
/// and what to do when it is readable.
public protocol ServiceEventSource: Sendable {
    var descriptor: Int32 { get }
    func handle()
}
