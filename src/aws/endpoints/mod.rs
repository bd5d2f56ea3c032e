//! What the fleet holds: the inventory of endpoints (with each variant's autoscaling targets and
//! policies; `autoscaling.rs` also reads recent scaling activities), configurations and models
//! described once, a multi-model endpoint's model catalog, warm sets, the kind of an endpoint
//! (`kind.rs`) and the figures of its shape — serverless concurrency, asynchronous paths, shadow
//! variants (`shape.rs`), a variant's RoutingConfig (`routing.rs`), and one inventory across
//! profiles and regions; `progressive.rs` lists and describes the fleet, reporting it page by
//! page as it comes, and `refresh.rs` chooses what a refresh describes (what changed).

pub mod autoscaling;
pub mod catalog;
pub mod describe;
pub mod inventory;
pub mod kind;
pub mod multi;
pub mod profiles;
pub mod progressive;
pub mod refresh;
pub mod routing;
pub mod shape;
pub mod warmset;
