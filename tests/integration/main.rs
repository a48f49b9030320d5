//! The integration tests, one test binary (one link step): each module runs the built binary or
//! the library against local servers, real files and processes; the helpers they share are
//! `common` (servers, the clean-environment runner, pty, webdriver), `scripted` (raw TCP
//! scripts), `security` and `staged` (runs of the binary in a project).

// Tests set up repositories and servers as a person would: their programs are not the model's.
#![allow(clippy::disallowed_methods)]

mod common;
mod scripted;
mod security;
mod staged;

mod agent;
mod answer_cap;
mod api_recordings;
mod approvals_security;
mod asking;
mod attach_screen;
mod building;
mod cli;
mod confinement;
mod custom_tools;
mod durability;
mod everyday_blender;
mod everyday_geo;
mod everyday_know;
mod everyday_media;
mod everyday_media2;
mod everyday_misc;
mod everyday_route;
mod everyday_spotify;
mod everyday_time;
mod everyday_utils;
mod everyday_web;
mod fixtures;
mod form_browser;
mod gateway;
mod gateway_browser;
mod gateway_card_text;
mod gateway_forms;
mod gateway_log;
mod gateway_protocols;
mod gateway_respond;
mod git_security;
mod guide_example;
mod headless_asks;
mod headless_forms;
mod interactive;
mod interview;
mod interview_media;
mod interview_server;
mod local_model;
mod mcp;
mod mcp_conformance;
mod mcp_project;
mod ntfy;
mod parked;
mod patch_scenarios;
mod phone_forms;
mod phone_repl;
mod project_questions;
mod prompt_cache;
mod provider_security;
mod provider_streams;
mod provider_trust;
mod providers;
mod readme_script;
mod render_safety;
mod repl;
mod repl_input;
mod request_props;
mod sandbox;
mod session;
mod sessions;
mod soak;
mod special_files;
mod stops;
mod stranger_bodies;
mod stranger_connections;
mod subagent_security;
mod terminal_forms;
mod terminal_safety;
mod terminal_ux;
mod terminal_wrap;
mod tools_on_demand;
mod user_tool_asks;
mod voice;
mod web_reach;
mod window;
