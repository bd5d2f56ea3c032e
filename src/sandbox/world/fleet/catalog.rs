//! The demo multi-model endpoint's S3 catalog of tenant models.

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::deploy::DEMO_BUCKET;
use crate::sandbox::world::hash::fxhash;
use crate::sandbox::world::resources::S3Object;
use crate::sandbox::world::state::World;

/// The demo MME's catalog: tenant models of varied sizes, one too large to load within 60 s.
pub(super) fn seed_catalog(world: &mut World, now: f64) {
    let tenants = [
        "acme",
        "globex",
        "initech",
        "umbrella",
        "hooli",
        "stark",
        "wayne",
        "wonka",
        "tyrell",
        "cyberdyne",
        "soylent",
        "aperture",
        "blackmesa",
        "vandelay",
        "dunder",
        "pied-piper",
    ];
    let mut rng = StdRng::seed_from_u64(7);
    let mut objects = BTreeMap::new();
    for (i, t) in tenants.iter().enumerate() {
        for (j, suffix) in ["finetuned-v1", "finetuned-v2"].iter().enumerate() {
            let size = rng.random_range(80_000_000..900_000_000u64);
            let key = format!("tenants/tenant-{t}-{suffix}.tar.gz");
            objects.insert(
                key,
                S3Object {
                    size,
                    last_modified: now - 86_400.0 * (i * 2 + j + 1) as f64,
                    etag: etag(&format!("{t}{suffix}")),
                },
            );
        }
    }
    for lang in ["de", "fr", "ja", "pt"] {
        objects.insert(
            format!("tenants/lang-{lang}-intent.tar.gz"),
            S3Object {
                size: 240_000_000,
                last_modified: now - 86_400.0 * 9.0,
                etag: etag(lang),
            },
        );
    }
    objects.insert(
        "tenants/tenant-globex-llm-70b.tar.gz".into(),
        S3Object {
            size: 40_000_000_000,
            last_modified: now - 86_400.0 * 2.0,
            etag: etag("70b"),
        },
    );
    objects.insert(
        "models/README.txt".into(),
        S3Object {
            size: 512,
            last_modified: now,
            etag: etag("readme"),
        },
    );
    world.buckets.insert(DEMO_BUCKET.into(), objects);
}

fn etag(seed: &str) -> String {
    format!("\"{:016x}{:016x}\"", fxhash(seed), fxhash(&seed.repeat(2)))
}
