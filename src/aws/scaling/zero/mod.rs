//! Autoscaling of inference components and the scale-to-zero doctor: the component's scaling
//! read in one go (`read.rs`), the doctor's word on each piece scale to zero needs
//! (`doctor.rs`), the Scaling view's part (`view.rs`), and the changes that create what is
//! missing (`plan.rs`), sent through the scaling change path (`scaling/change.rs`); the variant's
//! ManagedInstanceScaling is written as a new endpoint configuration (`instances.rs`).

pub mod doctor;
pub mod instances;
pub mod plan;
pub mod read;
#[cfg(test)]
mod tests;
pub mod view;
