//! awsQuery form bodies are decoded as forms: a percent-encoded or `+`-encoded Action is the
//! same Action (STS answers GetCallerIdentity), and a form without one is not an STS call.

use sagedeck::sandbox::http::raw_client;

use crate::common::sandbox;

const FORM: (&str, &str) = ("content-type", "application/x-www-form-urlencoded; charset=utf-8");

#[tokio::test]
async fn sts_form_fields_are_percent_decoded() {
    let sb = sandbox().await;
    let url = sb.endpoint_url();
    for body in [
        "Action=GetCallerIdentity&Version=2011-06-15",
        "Action=Get%43allerIdentity&Version=2011-06-15",
        "Version=2011%2D06%2D15&%41ction=GetCallerIdentity",
    ] {
        let r = raw_client::send(&url, "POST", "/", &[FORM], body).await.unwrap();
        assert_eq!(r.status, 200, "{body}: {}", r.text());
        assert!(r.text().contains("<GetCallerIdentityResult>"), "{body}: {}", r.text());
    }
    let r = raw_client::send(&url, "POST", "/", &[FORM], "Action=Assume+Role")
        .await
        .unwrap();
    assert_eq!(r.status, 400);
    assert!(r.text().contains("STS action Assume Role"), "{}", r.text());
}
