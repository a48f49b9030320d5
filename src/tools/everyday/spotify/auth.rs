//! `spotify_auth`: the Authorization Code flow with PKCE. The callback server starts on
//! 127.0.0.1, the authorisation address is shown as the interview's is (a browser opened here
//! when one can be, else the address with the `ssh -L` line), the tool waits for the answer
//! (Ctrl+C or a few minutes end the wait), exchanges the code, keeps the tokens in the
//! profile's tokens.json and says who is signed in.

use std::time::{Duration, Instant};

use super::{api, token};
use crate::interact::{FormNotice, FormPurpose, Prompt, Request, Response, Unavailable};
use crate::services::SPOTIFY_ACCOUNTS;
use crate::tools::ToolContext;
use crate::tools::kit::web::encode_pairs;
use crate::web::callback::{Answer, Callback};
use crate::web::pkce::Pkce;

/// What the tools may do: change the user's playlists, read who they are.
const SCOPES: &str = "playlist-modify-private playlist-modify-public user-read-private";
/// How long the person has to sign in.
const WAIT: Duration = Duration::from_secs(300);

const NO_UI: &str = "spotify_auth needs someone at the terminal to sign in in a browser, and nobody can answer here (non-interactive mode). Ask the user to run Marvin interactively and ask for the Spotify sign-in there.";

pub(super) fn spotify_auth(ctx: &ToolContext) -> Result<String, String> {
    let client_id = token::client_id(ctx)?;
    let interactor = ctx.interactor.clone().ok_or(NO_UI)?;
    token::profile_dir(ctx)?;
    let port = ctx.settings.web.settings().spotify_redirect_port;
    let redirect_uri = format!("http://127.0.0.1:{port}/callback");
    let pkce = Pkce::new()?;
    let callback = Callback::start(port, pkce.state.clone(), &ctx.settings.temp_dir(), "Spotify")
        .map_err(|e| format!(
            "Cannot listen on 127.0.0.1:{port} for Spotify's answer ({e}): another program uses the port. Stop it and try again, or set SPOTIFY_REDIRECT_PORT to a free port and register http://127.0.0.1:<that port>/callback with the Spotify app."
        ))?;
    let url = authorize_url(ctx, &client_id, &redirect_uri, &pkce);
    let prompt = notice(ctx, &url, port);
    match interactor.ask(&prompt) {
        Ok(Response::Cancelled) | Err(Unavailable::Cancelled) => return Err(cancelled(ctx)),
        Err(Unavailable::NoUi) => return Err(NO_UI.into()),
        Ok(_) => {}
    }
    let code = wait(&callback, ctx)?;
    drop(callback);
    token::exchange(ctx, &code, &redirect_uri, &pkce.verifier)?;
    let me = api::get(ctx, "/me", &[])?;
    let name = me["display_name"]
        .as_str()
        .filter(|n| !n.trim().is_empty())
        .or(me["id"].as_str())
        .unwrap_or("an unnamed account");
    let id = me["id"].as_str().unwrap_or_default();
    Ok(format!(
        "Signed in to Spotify as {name} (user id {id}). The sign-in is kept in this profile and renewed as needed; spotify_search, spotify_create_playlist and spotify_add_tracks can be used now."
    ))
}

/// SPOTIFY_ACCOUNTS_URL/authorize with the client, the challenge, the state and the scopes.
fn authorize_url(ctx: &ToolContext, client_id: &str, redirect_uri: &str, pkce: &Pkce) -> String {
    let query = encode_pairs(&[
        ("client_id", client_id),
        ("response_type", "code"),
        ("redirect_uri", redirect_uri),
        ("code_challenge_method", "S256"),
        ("code_challenge", &pkce.challenge),
        ("state", &pkce.state),
        ("scope", SCOPES),
    ]);
    format!(
        "{}/authorize?{query}",
        ctx.settings.web.base(&SPOTIFY_ACCOUNTS)
    )
}

/// The address shown as the interview shows its form: opened in a browser when one can be,
/// else with why not and, over SSH, the tunnel for the callback's port.
fn notice(ctx: &ToolContext, url: &str, port: u16) -> Prompt {
    let surface = &ctx.settings.form_surface;
    let reach = surface.show(url, port);
    let opened = reach.is_none();
    Prompt {
        request: Request::Form(FormNotice {
            purpose: FormPurpose::SignIn,
            title: "Sign in to Spotify".into(),
            url: url.to_string(),
            opened,
            reach,
            terminal: None,
            record: None,
        }),
        error: None,
        timeout: WAIT,
        call_id: ctx.call_id.clone(),
        tool: String::new(),
        presentation: Default::default(),
        completed: Default::default(),
    }
}

/// The code from the callback, or why there is none: refused, cancelled, too late.
fn wait(callback: &Callback, ctx: &ToolContext) -> Result<String, String> {
    let deadline = Instant::now() + WAIT;
    loop {
        if ctx.cancel.is_cancelled() {
            return Err(cancelled(ctx));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "Nobody signed in to Spotify within {} minutes. Run spotify_auth again when the user is ready.",
                WAIT.as_secs() / 60
            ));
        }
        match callback.wait(left.min(Duration::from_millis(100))) {
            Some(Answer::Code(code)) => return Ok(code),
            Some(Answer::Refused(error)) if error == "access_denied" => {
                return Err("The user declined the Spotify sign-in (access_denied). Ask them whether they want Marvin to use Spotify.".into());
            }
            Some(Answer::Refused(error)) => {
                return Err(format!(
                    "Spotify did not sign Marvin in ({error}). Check SPOTIFY_CLIENT_ID and the redirect URI registered with the app, then run spotify_auth again."
                ));
            }
            None => {}
        }
    }
}

fn cancelled(ctx: &ToolContext) -> String {
    format!(
        "The Spotify sign-in was cancelled by the user ({}).",
        ctx.cancel.how()
    )
}
