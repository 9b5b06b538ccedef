//! The page's files, compiled into the binary: `scout serve` needs no network and no files
//! at run time. Plain HTML, CSS and JavaScript with no framework (docs/serve.md says why).

/// The files under `src/serve/assets/`: name → (contents, content type).
const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        include_str!("assets/index.html"),
        "text/html; charset=utf-8",
    ),
    (
        "app.js",
        include_str!("assets/app.js"),
        "text/javascript; charset=utf-8",
    ),
    (
        "app.css",
        include_str!("assets/app.css"),
        "text/css; charset=utf-8",
    ),
    // An image the CSP's `img-src 'self'` allows; a browser asks for it with the cookie.
    (
        "favicon.svg",
        include_str!("assets/favicon.svg"),
        "image/svg+xml",
    ),
];

/// The file named `name`, with its content type.
pub fn get(name: &str) -> Option<(&'static str, &'static str)> {
    FILES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, body, kind)| (*body, *kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_loads_only_its_own_files() {
        let (html, _) = get("index.html").expect("index");
        assert!(html.contains("/assets/app.js") && html.contains("/assets/app.css"));
        assert!(html.contains("href=\"/assets/favicon.svg\""));
        let (svg, kind) = get("favicon.svg").expect("favicon");
        assert_eq!(kind, "image/svg+xml");
        assert!(!svg.contains("<script"), "an icon without a script");
        // No CDN, no inline script (the CSP allows only this server's files).
        for (_, body, _) in FILES {
            assert!(!body.contains("https://cdn"), "no CDN");
        }
        assert!(!html.contains("<script>"), "no inline script");
        assert!(get("../Cargo.toml").is_none());
    }
}
