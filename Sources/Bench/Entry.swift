import Shared
@main struct M { static func main() {} }
