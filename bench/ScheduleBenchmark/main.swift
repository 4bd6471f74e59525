import Adapters
import Dispatch
import Domain
import Foundation

// Computing the next interval event over 1,000 enabled schedules, in a zone
// with DST (run by bench/daemon.sh on a release build).

let zone = SystemTimeZone.named("Europe/Berlin")!
let calendar = IntervalCalendar(timeZone: zone)
let schedules = (0..<1_000).map { index in
    Schedule(name: "s\(index)", groupId: GroupID(), from: TimeOfDay(hour: index % 24, minute: index % 60)!,
             to: TimeOfDay(hour: (index + 3) % 24, minute: (index * 7) % 60)!,
             weekdays: index % 3 == 0 ? Weekday.weekdays : Set(Weekday.allCases), warnSeconds: index % 2 == 0 ? 300 : 0)
}
var samples: [Double] = []
var instant = Date(timeIntervalSince1970: 1_800_000_000)
for _ in 0..<50 {
    let start = DispatchTime.now().uptimeNanoseconds
    let next = calendar.upcomingEvents(of: schedules, from: instant, count: 1)
    samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    instant = next.first!.at.addingTimeInterval(0.001)
}
samples.sort()
print(String(format: "| next event of 1,000 schedules | %.2f ms | %.2f ms |", samples[samples.count / 2], samples.last!))
