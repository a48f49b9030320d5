//! stack_search and stack_answers against a local Stack Exchange API.
