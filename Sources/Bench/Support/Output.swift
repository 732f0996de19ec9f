import Foundation

/// The benches' `print`: each line written at once, so that a long bench's lines show as they come through a pipe
/// (`make`, `tee`), as the scripts' did; Swift's own buffers a pipe's output until exit.
func print(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
