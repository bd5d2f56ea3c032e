//! Which rows of the inventory are described: a refresh shows each ListEndpoints page at once and
//! fills the rows in as their describes land. A row listed but not described yet is loading (its
//! unknown columns show a loading mark, never a blank or a zero); a row whose describe failed
//! keeps its listed values with the error marked. Rows are known by their pair (origin) and name.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::aws::endpoints::inventory::{EndpointInfo, Inventory};
use crate::aws::endpoints::progressive::InventoryProgress;
use crate::tui::data::Data;

/// What is known of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowState<'a> {
    /// Described: every column is known.
    Described,
    /// Listed; its describe is in flight.
    Loading,
    /// Listed; its describe failed (why).
    Failed(&'a str),
}

/// The rows not (yet) described, by (origin, name); every other row is described.
#[derive(Debug, Clone, Default)]
pub struct Undescribed {
    loading: HashSet<(usize, String)>,
    failed: HashMap<(usize, String), String>,
}

impl Undescribed {
    /// Whether every row is described.
    pub fn is_empty(&self) -> bool {
        self.loading.is_empty() && self.failed.is_empty()
    }

    /// How many rows are waiting for their describe.
    pub fn loading(&self) -> usize {
        self.loading.len()
    }
}

/// The pair of row `index` (0 in a single-region view).
fn origin_of(data: &Data, index: usize) -> usize {
    data.origins.get(index).copied().unwrap_or(0)
}

/// Where each row of the inventory is, by name: a refresh's reports (a page of 100 rows, a
/// batch of describes) find their rows without scanning every name for each (at 10,000 rows
/// that scan was most of the console's work in steady state). Rebuilt whenever it no longer
/// matches the inventory (another length, or a row moved).
#[derive(Debug, Clone, Default)]
pub struct RowIndex {
    by_name: HashMap<String, Vec<usize>>,
    rows: usize,
}

impl RowIndex {
    fn rebuild(&mut self, inventory: &[Arc<EndpointInfo>]) {
        self.by_name.clear();
        for (i, e) in inventory.iter().enumerate() {
            self.by_name.entry(e.name.clone()).or_default().push(i);
        }
        self.rows = inventory.len();
    }

    /// Forgets every row (the inventory was replaced).
    fn reset(&mut self) {
        self.by_name.clear();
        self.rows = usize::MAX;
    }

    /// Notes row `index`, just pushed.
    fn pushed(&mut self, name: &str, index: usize) {
        if self.rows == index {
            self.by_name.entry(name.to_string()).or_default().push(index);
            self.rows = index + 1;
        }
    }
}

/// The row of `name` from pair `origin`.
fn index_of(data: &mut Data, origin: usize, name: &str) -> Option<usize> {
    let find = |data: &Data| {
        let rows = data.row_index.by_name.get(name)?;
        rows.iter().copied().find(|i| origin_of(data, *i) == origin)
    };
    if data.row_index.rows != data.inventory.len() {
        data.row_index.rebuild(&data.inventory);
    }
    match find(data) {
        Some(i) if data.inventory.get(i).is_some_and(|e| e.name == name) => Some(i),
        Some(_) => {
            data.row_index.rebuild(&data.inventory);
            find(data)
        }
        None => None,
    }
}

impl Data {
    /// What is known of row `index` of the inventory.
    pub fn row_state(&self, index: usize) -> RowState<'_> {
        let Some(e) = self.inventory.get(index) else {
            return RowState::Described;
        };
        if self.undescribed.is_empty() {
            return RowState::Described;
        }
        let key = (origin_of(self, index), e.name.clone());
        if self.undescribed.loading.contains(&key) {
            return RowState::Loading;
        }
        match self.undescribed.failed.get(&key) {
            Some(why) => RowState::Failed(why),
            None => RowState::Described,
        }
    }

    /// What is known of the selected endpoint (Described when none is selected).
    pub fn selected_state(&self) -> RowState<'_> {
        let name = self.selected.as_deref().unwrap_or_default();
        let wanted = self.selected_region.unwrap_or(0);
        let index = (0..self.inventory.len())
            .filter(|i| self.inventory[*i].name == name)
            .find(|i| origin_of(self, *i) == wanted || self.origins.is_empty());
        index.map(|i| self.row_state(i)).unwrap_or(RowState::Described)
    }

    /// Applies one report of a refresh in progress from pair `origin` (None: a single-region
    /// view). A listed row already shown keeps its values until its new describe lands.
    pub fn apply_progress(&mut self, origin: Option<usize>, progress: &InventoryProgress) {
        let o = origin.unwrap_or(0);
        let changed = match progress {
            InventoryProgress::Listed(rows) => {
                let mut changed = false;
                for row in rows {
                    if index_of(self, o, &row.name).is_some() {
                        continue;
                    }
                    changed = true;
                    self.undescribed.loading.insert((o, row.name.clone()));
                    self.inventory.push(Arc::new(row.clone()));
                    self.row_index.pushed(&row.name, self.inventory.len() - 1);
                    if let Some(o) = origin {
                        self.origins.resize(self.inventory.len() - 1, 0);
                        self.origins.push(o);
                    }
                }
                self.loaded = true;
                if self.selected.is_none() {
                    self.selected = self.inventory.first().map(|e| e.name.clone());
                }
                changed
            }
            InventoryProgress::Described(infos) => {
                let mut changed = false;
                for info in infos {
                    let key = (o, info.name.clone());
                    changed |= self.undescribed.loading.remove(&key);
                    changed |= self.undescribed.failed.remove(&key).is_some();
                    if let Some(i) = index_of(self, o, &info.name)
                        && *self.inventory[i] != **info
                    {
                        self.inventory[i] = info.clone();
                        changed = true;
                    }
                }
                changed
            }
            InventoryProgress::Failed(failures) => {
                let mut changed = false;
                for f in failures {
                    let key = (o, f.endpoint.clone());
                    if self.undescribed.loading.remove(&key) || index_of(self, o, &f.endpoint).is_some() {
                        self.undescribed.failed.insert(key, f.error.to_string());
                        changed = true;
                    }
                }
                changed
            }
        };
        if changed {
            self.rows_version += 1;
        }
    }

    /// Puts a finished inventory in place: its rows, `endpoints` (taken out of `inv`, not copied:
    /// those it names pending, never described yet, still loading), then each endpoint it could not describe with the row it had (listed or
    /// described before), marked failed. In a multi-region view the
    /// [`crate::tui::event::AppEvent::Regions`] before it has set the new rows' pairs.
    pub fn replace_inventory(&mut self, inv: &Inventory, endpoints: Vec<Arc<EndpointInfo>>) {
        let multi = !self.regions.is_empty();
        let mut kept: Vec<(Arc<EndpointInfo>, usize, String)> = Vec::new();
        for f in &inv.failures {
            if endpoints.iter().any(|e| e.name == f.endpoint) {
                continue;
            }
            let Some(row) = self.inventory.iter().find(|e| e.name == f.endpoint) else {
                continue;
            };
            let origins = self.undescribed.failed.keys().chain(&self.undescribed.loading);
            let origin = origins.filter(|(_, n)| *n == f.endpoint).map(|(o, _)| *o).next();
            kept.push((row.clone(), origin.unwrap_or(0), f.error.to_string()));
        }
        self.inventory = endpoints;
        self.row_index.reset();
        self.undescribed = Undescribed::default();
        if !inv.pending.is_empty() {
            let pending: HashSet<&str> = inv.pending.iter().map(String::as_str).collect();
            for (i, e) in self.inventory.iter().enumerate() {
                if pending.contains(e.name.as_str()) {
                    let key = (origin_of(self, i), e.name.clone());
                    self.undescribed.loading.insert(key);
                }
            }
        }
        for (row, origin, why) in kept {
            if multi {
                self.origins.resize(self.inventory.len(), 0);
                self.origins.push(origin);
            }
            self.undescribed.failed.insert((origin, row.name.clone()), why);
            self.inventory.push(row);
        }
        // Rows gathered page by page leave up to half their room unused: 10,000 rows keep none.
        self.inventory.shrink_to_fit();
    }
}
