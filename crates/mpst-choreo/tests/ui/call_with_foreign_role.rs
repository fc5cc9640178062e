use mpst_choreo::{Choreography, Op, Result, RoleSet, roles};

roles! {
    struct Alice;
    struct Bob;
    struct Carol;
}

struct Inner;

impl Choreography for Inner {
    type Roles = RoleSet![Alice, Carol];

    async fn run(self, _op: &Op<Self::Roles>) -> Result<()> {
        Ok(())
    }
}

struct Outer;

impl Choreography for Outer {
    type Roles = RoleSet![Alice, Bob];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        // Inner needs Carol, who is not a role of Outer.
        op.call(Inner).await
    }
}

fn main() {}
