import Domain
import FoundationEssentials
import Testing

@Suite struct HybridClockTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)

    @Test func followsTheWallClockWhileItMovesOn() {
        var clock = HybridClock(device: "a")
        let first = clock.tick(now: Self.t0)
        let second = clock.tick(now: Self.t0.addingTimeInterval(1))
        #expect(first.milliseconds == 1_795_000_000_000 && first.counter == 0)
        #expect(second.milliseconds == 1_795_000_001_000 && second.counter == 0)
        #expect(first < second)
    }

    @Test func countsWithinOneMillisecondAndWhenTheClockGoesBack() {
        var clock = HybridClock(device: "a")
        let first = clock.tick(now: Self.t0)
        let same = clock.tick(now: Self.t0)
        let back = clock.tick(now: Self.t0.addingTimeInterval(-3_600))
        #expect(same == HybridTimestamp(milliseconds: first.milliseconds, counter: 1, device: "a"))
        #expect(back == HybridTimestamp(milliseconds: first.milliseconds, counter: 2, device: "a"))
    }

    /// Device f's clock runs a year fast. An edit made on a after it saw
    /// f's change orders after it, so f does not win later edits.
    @Test func aFastClockDoesNotWinEditsMadeAfterItWasSeen() {
        var fast = HybridClock(device: "f")
        let fastEdit = fast.tick(now: Self.t0.addingTimeInterval(365 * 86_400))
        var slow = HybridClock(device: "a")
        slow.observe(fastEdit)
        let later = slow.tick(now: Self.t0.addingTimeInterval(5))
        #expect(later > fastEdit)
        #expect(HybridClock.secondsAhead(fastEdit, of: Self.t0) == 365 * 86_400)
        // And a slow clock's edit after seeing a's still orders after it.
        var behind = HybridClock(device: "0")
        behind.observe(later)
        #expect(behind.tick(now: Self.t0.addingTimeInterval(-86_400)) > later)
    }

    @Test func aFullCounterMovesToTheNextMillisecond() {
        var clock = HybridClock(device: "a", latest: HybridTimestamp(milliseconds: 5, counter: .max, device: "b"))
        #expect(clock.tick(now: Date(timeIntervalSince1970: 0)) == HybridTimestamp(milliseconds: 6, counter: 0, device: "a"))
    }

    @Test func textRoundTripsAndRejectsDamage() {
        let reading = HybridTimestamp(milliseconds: 1_795_000_000_123, counter: 7, device: "0f1e2d3c-aaaa-bbbb-cccc-000011112222")
        #expect(HybridTimestamp(text: reading.description) == reading)
        for bad in ["", "1-2", "x-0-a", "1-0-", "1-0-UPPER", "-1-0-a", "99999999999999999-0-a", "1-4294967296-a", "1-0-a b"] {
            #expect(HybridTimestamp(text: bad) == nil, "\(bad)")
        }
    }
}
