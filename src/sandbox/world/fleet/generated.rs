//! Generated endpoints for scale tests (`fleet-ep-NNNN`).

use super::deploy::{HF_IMAGE, IMG_IMAGE, TGI_IMAGE, XGB_IMAGE, add_model, deploy};
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::EndpointStatus;

/// Inserts `n` generated endpoints over four shared models: every third one with a Stable and a
/// Canary variant, a few failed.
pub(super) fn seed_generated(sb: &Sandbox, n: usize) {
    let mut world = sb.world.write();
    let w = &mut *world;
    let images = [HF_IMAGE, TGI_IMAGE, XGB_IMAGE, IMG_IMAGE];
    for (k, image) in images.iter().enumerate() {
        add_model(sb, w, &format!("fleet-model-{k}"), image, &[], None);
    }
    for i in 0..n {
        let name = format!("fleet-ep-{i:04}");
        let model = format!("fleet-model-{}", i % images.len());
        let age = 3600.0 * (1 + i) as f64;
        if i % 3 == 0 {
            deploy(
                sb,
                w,
                &name,
                &format!("{name}-config"),
                &[
                    ("Stable", &model, "ml.m5.large", 2, 9.0),
                    ("Canary", &model, "ml.m5.large", 1, 1.0),
                ],
                age,
            );
        } else {
            deploy(
                sb,
                w,
                &name,
                &format!("{name}-config"),
                &[("AllTraffic", &model, "ml.c5.large", 1, 1.0)],
                age,
            );
        }
        if i % 97 == 13
            && let Some(ep) = w.endpoints.get_mut(&name)
        {
            ep.status = EndpointStatus::Failed;
            ep.failure_reason = Some("Image size exceeds the limit for the instance type.".into());
        }
    }
}
