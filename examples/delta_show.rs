fn main() {
    let args: Vec<String> = std::env::args().collect();
    for s in ctx::testing::sequence::replay(std::path::Path::new(&args[1]), true) {
        println!("===== {} delta={}", s.dir.display(), s.delivery.delta.is_some());
        println!("{}", s.text);
    }
}
