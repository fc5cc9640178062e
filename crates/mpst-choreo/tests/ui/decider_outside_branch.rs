use mpst_choreo::{Choreography, Op, Result, RoleSet, roles};

roles! {
    struct Alice;
    struct Bob;
    struct Carol;
}

struct Branch(bool);

impl Choreography for Branch {
    type Roles = RoleSet![Bob, Carol];

    async fn run(self, _op: &Op<Self::Roles>) -> Result<()> {
        Ok(())
    }
}

struct Decide;

impl Choreography for Decide {
    type Roles = RoleSet![Alice, Bob, Carol];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let choice = op.locally(Alice, |_| true);
        // The decider must take part in the branch it decides.
        op.cond(Alice, &choice, Branch).await?;
        Ok(())
    }
}

fn main() {}
