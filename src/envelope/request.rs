//! The rules of a Request object (and the decided cases of `docs/DESIGN.md`), applied
//! to the envelope members found.

use super::members::{Member, Slots, REQUEST_MEMBERS};
use super::{Call, Request};
use crate::error::InvalidRequest;
use crate::id::Id;
use crate::limits::Limits;
use crate::raw::Kind;

impl<'a> Slots<'a> {
    /// Applies the rules of a Request object (and the decided cases of DESIGN.md).
    // Inlined into each caller (on the fast build out of line costs the slots a trip
    // through memory); on the compact build that is `request_of` alone.
    #[inline(always)]
    pub(super) fn request(&self, limits: &Limits) -> Call<'a> {
        // The id to answer with, and whether the id itself is fine.
        let (id, id_problem) = match self.get(Member::Id) {
            None => (None, None),
            Some(_) if self.duplicated(Member::Id) => (None, Some(InvalidRequest::DuplicateMember)),
            Some(raw) => match Id::from_raw(raw) {
                None => (None, Some(InvalidRequest::BadId)),
                Some(_) if raw.as_bytes().len() > limits.max_id_len => {
                    (None, Some(InvalidRequest::IdTooLong))
                }
                Some(id) => (Some(id), None),
            },
        };
        let invalid = |reason| Call::Invalid {
            id: id.unwrap_or(Id::NULL),
            reason,
        };
        if let Some(reason) = id_problem {
            return invalid(reason);
        }
        if self.any_duplicated(REQUEST_MEMBERS) {
            return invalid(InvalidRequest::DuplicateMember);
        }
        if !self.version_ok() {
            return invalid(InvalidRequest::BadVersion);
        }
        let method = match self.get(Member::Method) {
            None => return invalid(InvalidRequest::MissingMethod),
            Some(m) => match m.as_str() {
                None => return invalid(InvalidRequest::MethodNotString),
                Some(m) if m.as_raw().len() > limits.max_method_len => {
                    return invalid(InvalidRequest::MethodTooLong)
                }
                Some(m) => m,
            },
        };
        let params = self.get(Member::Params);
        if let Some(p) = params {
            if !matches!(p.kind(), Kind::Array | Kind::Object) {
                return invalid(InvalidRequest::ParamsNotStructured);
            }
        }
        Call::Request(Request { method, params, id })
    }
}
