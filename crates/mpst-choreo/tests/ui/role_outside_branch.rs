use mpst_choreo::{Choreography, Op, Result, RoleSet, roles};

roles! {
    struct Alice;
    struct Bob;
    struct Carol;
}

/// The branch only Alice and Bob are told about.
struct Branch(bool);

impl Choreography for Branch {
    type Roles = RoleSet![Alice, Bob];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let v = op.locally(Alice, |_| self.0);
        // Carol does not know the choice, so she cannot take part in the branch.
        op.comm(Alice, Carol, &v).await?;
        Ok(())
    }
}

struct Decide;

impl Choreography for Decide {
    type Roles = RoleSet![Alice, Bob, Carol];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let choice = op.locally(Alice, |_| true);
        op.cond(Alice, &choice, Branch).await?;
        Ok(())
    }
}

fn main() {}
