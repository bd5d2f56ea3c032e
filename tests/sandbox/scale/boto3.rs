//! boto3 against the scale features (`tests/compat/scale_calls.py`): LastModifiedTime,
//! ListEndpoints' LastModifiedTimeAfter, the call counts and the throttle.

use crate::shapes::boto3::run_script;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boto3_sees_last_modified_counts_and_throttling() {
    run_script("scale_calls.py", "scale checks passed").await;
}
