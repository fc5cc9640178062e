use mpst_choreo::{Choreography, Op, Result, Roles, roles};

roles! {
    struct Alice;
    struct Bob;
    struct Carol;
}

struct Talk;

impl Choreography for Talk {
    type Roles = Roles![Alice, Bob];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let v = op.locally(Alice, |_| 1u8);
        // Carol is not a role of this choreography.
        op.comm(Alice, Carol, &v).await?;
        Ok(())
    }
}

fn main() {}
