use mpst_choreo::{Choreography, Op, Result, RoleSet, roles};

roles! {
    struct Alice;
    struct Bob;
}

struct Peek;

impl Choreography<u32> for Peek {
    type Roles = RoleSet![Alice, Bob];

    async fn run(self, op: &Op<Self::Roles>) -> Result<u32> {
        let secret = op.locally(Alice, |_| 42u32);
        // Bob cannot read a value located at Alice.
        let _ = op.locally(Bob, |un| *un.unwrap(&secret));
        Ok(0)
    }
}

fn main() {}
