//! Forms generated from the corpus of real-world input schemas.

use super::*;

#[test]
fn forms_follow_refs_defaults_optional_and_choices() {
    let f = SchemaForm::new(&pydantic_search_schema());
    assert_eq!(
        paths(&f),
        [
            "$.query",
            "$.filter",
            "$.filter.status",
            "$.filter.tags",
            "$.limit",
            "$.sort",
            "$.sort.field",
            "$.sort.descending"
        ]
    );
    // allOf[$ref] and anyOf[$ref, null] are the referenced objects, not choices.
    assert_eq!(f.node_at(1).unwrap().kind, Kind::Object);
    assert_eq!(f.node_at(1).unwrap().description.as_deref(), Some("What to keep"));
    assert_eq!(f.node_at(5).unwrap().kind, Kind::Object);
    assert!(matches!(&f.node_at(2).unwrap().kind, Kind::Enum(v) if v.len() == 3));
    // Defaults are shown (limit 10, filter.status "open", sort.descending false); optional
    // objects holding only defaults are left out, so sort is not sent half-filled.
    assert_eq!(f.node_at(4).unwrap().text, "10");
    assert_eq!(f.node_at(2).unwrap().pick, Some(0));
    assert_eq!(f.node_at(7).unwrap().flag, Some(false));
    assert_eq!(f.value(), json!({"limit": 10}));
    // query is required and empty: its row carries the problem.
    assert!(!f.is_valid());
    assert_eq!(f.row_errors["$.query"], ["required"]);
    let mut g = f.clone();
    g.set_value(&json!({"query": "x", "sort": {"descending": true}}));
    // The anyOf wrapper reports on the field itself, naming what is missing inside.
    assert!(
        g.row_errors["$.sort"][0].contains("missing required property `field`"),
        "{:?}",
        g.row_errors
    );

    let n = SchemaForm::new(&notify_schema());
    assert_eq!(
        paths(&n),
        [
            "$.message",
            "$.target",
            "$.target.email",
            "$.attachments",
            "$.priority",
            "$.ttl_seconds"
        ]
    );
    assert_eq!(n.node_at(1).unwrap().kind, Kind::Choice);
    assert_eq!(n.value()["priority"], json!("normal"));
    // Filling from a value picks the oneOf option it fits.
    let mut n2 = n.clone();
    n2.set_value(&json!({"message": "hi", "target": {"channel": "#oncall"}, "attachments": [{"name": "a.log"}]}));
    assert_eq!(
        paths(&n2),
        [
            "$.message",
            "$.target",
            "$.target.channel",
            "$.target.thread_ts",
            "$.attachments",
            "$.attachments[0]",
            "$.attachments[0].name",
            "$.attachments[0].url",
            "$.priority",
            "$.ttl_seconds"
        ]
    );
    assert!(n2.is_valid(), "{:?}", n2.errors);
    assert_eq!(
        n2.value(),
        json!({"message": "hi", "target": {"channel": "#oncall"}, "attachments": [{"name": "a.log"}]}),
        "a key absent from the value is absent from the form (the raw editor deleted it)"
    );
}

#[test]
fn recursive_refs_stop_and_unknown_shapes_are_raw_json() {
    let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}, "blob": {}},
        "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}}});
    let f = SchemaForm::new(&tree);
    assert!(f.rows.len() < 20, "{}", f.rows.len());
    let blob = f.rows.iter().position(|r| r.path == "$.blob").unwrap();
    assert_eq!(f.node_at(blob).unwrap().kind, Kind::Json);
}
