import Foundation
import RetimeCLI

let status = RetimeCLI.run(Array(CommandLine.arguments.dropFirst()),
                           write: { FileHandle.standardOutput.write(Data($0.utf8)) },
                           writeError: { FileHandle.standardError.write(Data($0.utf8)) })
exit(status)
