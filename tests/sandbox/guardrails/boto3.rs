//! boto3 (placeholder until the boto3 tests land).
