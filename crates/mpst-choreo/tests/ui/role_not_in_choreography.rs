use mpst_choreo::{Choreography, Op, Result, RoleSet, roles};

roles! {
    struct Alice;
    struct Bob;
    struct Carol;
}

struct Talk;

impl Choreography for Talk {
    type Roles = RoleSet![Alice, Bob];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let v = op.locally(Alice, |_| 1u8);
        // Carol is not a role of this choreography.
        op.comm(Alice, Carol, &v).await?;
        Ok(())
    }
}

fn main() {}
