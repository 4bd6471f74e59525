import Foundation
import Domain
import Testing

@Suite("Target: parsing domains and apps")
struct TargetTests {
    @Test("domains are stored lower-case, without a trailing dot", arguments: [
        ("Example.COM", "example.com"), ("news.example.org.", "news.example.org"), ("  slack.com ", "slack.com"),
        ("a-b.c0.io", "a-b.c0.io"), ("example.com\u{3002}", "example.com"),
    ])
    func canonical(input: String, stored: String) throws {
        #expect(try Target(parsing: input).description == stored)
    }

    @Test("Unicode labels become IDNA A-labels, and back for display", arguments: [
        ("bücher.de", "xn--bcher-kva.de"), ("BÜCHER.de", "xn--bcher-kva.de"), ("münchen.de", "xn--mnchen-3ya.de"),
        ("例え.jp", "xn--r8jz45g.jp"), ("xn--bcher-kva.de", "xn--bcher-kva.de"), ("правительство.рф", "xn--80aealotwbjpid2k.xn--p1ai"),
    ])
    func idna(input: String, ascii: String) throws {
        let target = try Target(parsing: input)
        #expect(target.description == ascii)
        guard case .domain(let name) = target else { Issue.record("not a domain"); return }
        #expect(try DomainName(name.unicode).ascii == ascii)
        #expect(try Target(parsing: target.displayName) == target)
    }

    @Test("people read a domain in Unicode and an app by its name")
    func displayNames() throws {
        #expect(try Target(parsing: "xn--bcher-kva.de").displayName == "bücher.de")
        #expect(try Target(parsing: "Example.COM").displayName == "example.com")
        #expect(try Target(parsing: "app:Mail").displayName == "app:Mail")
    }

    @Test("malformed domains are refused with a reason", arguments: [
        "", "   ", "localhost", "example..com", ".example.com", "-example.com", "example-.com", "exa mple.com",
        "https://example.com", "example.com/path", "*.example.com", "under_score.com", "ab--cd.com", "1.2.3.4",
        "xn--zzzz-.com", "xn--a.com", "emoji\u{1F600}.com", "\u{0301}accent.com",
        String(repeating: "a", count: 64) + ".com",
        Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: ".") + ".com",
    ])
    func invalidDomains(input: String) throws {
        let error = try #require(throws: GroupError.self) { try Target(parsing: input) }
        guard case .invalidTarget(let text, let reason) = error else { Issue.record("\(error)"); return }
        #expect(text == input)
        #expect(!reason.isEmpty)
        #expect(error.kind == .invalidInput)
        #expect(error.code == "group.invalidTarget")
    }

    @Test("a pasted URL is refused naming the domain to give instead; a name with spaces is told it has spaces", arguments: [
        ("https://www.YouTube.com/watch?v=1", "give the domain, not a URL: 'www.youtube.com'"),
        ("http://user@news.example.org:8080/a", "give the domain, not a URL: 'news.example.org'"),
        ("example.com/path#top", "give the domain, not a URL: 'example.com'"),
        ("file:///etc/hosts", "give a domain name such as example.com, not a URL"),
        ("not a domain", "a domain name has no spaces"),
        ("exa\tmple.com", "a domain name has no spaces"),
    ])
    func reasons(input: String, reason: String) throws {
        let error = try #require(throws: GroupError.self) { try Target(parsing: input) }
        #expect(error == .invalidTarget(input, reason: reason))
    }

    @Test("a 253-character name is accepted, 254 is not")
    func lengthLimit() throws {
        let label = String(repeating: "a", count: 63)
        let name253 = [label, label, label, String(repeating: "b", count: 58), "io"].joined(separator: ".")
        #expect(name253.count == 253)
        #expect(try Target(parsing: name253).description == name253)
        #expect(throws: GroupError.self) { try Target(parsing: "c" + name253) }
    }

    @Test("apps are written app:NAME and keep their name")
    func apps() throws {
        #expect(try Target(parsing: "app:Slack") == .app("Slack"))
        #expect(try Target(parsing: "APP: firefox ").description == "app:firefox")
        #expect(throws: GroupError.self) { try Target(parsing: "app:") }
        #expect(throws: GroupError.self) { try Target(parsing: "app:a\u{7}b") }
        #expect(throws: GroupError.self) { try Target(parsing: "app:" + String(repeating: "x", count: 65)) }
    }

    @Test("a domain covers itself and its subdomains only")
    func covers() throws {
        let domain = try Target(parsing: "example.com")
        #expect(domain.covers(try Target(parsing: "example.com")))
        #expect(domain.covers(try Target(parsing: "www.example.com")))
        #expect(domain.covers(try Target(parsing: "a.b.example.com")))
        #expect(!domain.covers(try Target(parsing: "notexample.com")))
        #expect(!domain.covers(try Target(parsing: "example.com.evil.org")))
        #expect(!domain.covers(.app("example.com")))
    }

    @Test("targets survive a JSON round trip as their text form")
    func codable() throws {
        let targets = try ["bücher.de", "app:Slack", "example.com"].map { try Target(parsing: $0) }
        let data = try JSONEncoder().encode(targets)
        #expect(String(decoding: data, as: UTF8.self) == #"["xn--bcher-kva.de","app:Slack","example.com"]"#)
        #expect(try JSONDecoder().decode([Target].self, from: data) == targets)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Target].self, from: Data(#"["not a domain"]"#.utf8)) }
    }
}
