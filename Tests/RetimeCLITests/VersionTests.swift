import RetimeCLI
import Testing

@Suite("retime --version")
struct VersionTests {
    @Test("prints retime X.Y.Z and exits 0")
    func version() {
        var out = ""
        #expect(RetimeCLI.run(["--version"], write: { out += $0 }, writeError: { _ in }) == 0)
        #expect(out.wholeMatch(of: /retime \d+\.\d+\.\d+\n/) != nil)
    }

    @Test("an unknown command exits 2 with one error line")
    func unknown() {
        var err = ""
        #expect(RetimeCLI.run(["frobnicate"], write: { _ in }, writeError: { err += $0 }) == 2)
        #expect(err.hasPrefix("retime: error: "))
    }
}
