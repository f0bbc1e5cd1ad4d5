//! Commands whose output is a secret by design: the environment, a `.env`
//! file, a private key, a cloud or cluster credential. ctx exists to keep
//! output, so it must not keep these: `ctx run`, the shims and the rewrite
//! hook let them run exactly as they would without ctx (the bytes go
//! straight to the reader) and record nothing, neither in the store nor in
//! the ledger. The list is documented in docs/secrets.md.

/// Files whose content is a secret: `cat .env.local`, `less id_rsa`.
fn secret_file(path: &str) -> bool {
    let name = super::basename(path);
    let private_key =
        name.starts_with("id_") && !name.ends_with(".pub") && !name.contains('.') && name.len() > 3;
    name.starts_with(".env")
        || private_key
        || [
            ".pem",
            ".key",
            ".p12",
            ".pfx",
            ".keystore",
            ".jks",
            ".tfvars",
        ]
        .iter()
        .any(|ext| name.ends_with(ext))
        || [
            ".netrc",
            ".pgpass",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            ".dockercfg",
            "credentials",
            "credentials.json",
            "secrets.yaml",
            "secrets.yml",
            "secrets.json",
        ]
        .contains(&name)
        || path.ends_with(".docker/config.json")
        || path.ends_with(".kube/config")
}

/// Programs that print the files they are given.
const READERS: &[&str] = &[
    "cat", "bat", "batcat", "less", "more", "head", "tail", "strings", "xxd", "hexdump", "od",
    "nl", "tac", "base64",
];

/// Why `argv` prints secrets by design, if it does. `argv` is the command
/// as run, wrappers and all: `timeout 5 printenv` prints the environment.
pub fn prints_secrets<S: AsRef<str>>(argv: &[S]) -> Option<&'static str> {
    let words = super::command_words(argv);
    let (&first, rest) = words.split_first()?;
    // The words that are not options: subcommands, resources, and the
    // values of options (`--profile x`), which is why a subcommand is
    // looked for as a pair of neighbours rather than at a position.
    let subs: Vec<&str> = rest
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    let pair = |x: &dyn Fn(&str) -> bool, y: &dyn Fn(&str) -> bool| {
        subs.windows(2).any(|w| x(w[0]) && y(w[1]))
    };
    let is = |names: &'static [&'static str]| move |w: &str| names.contains(&w);
    let has = |flag: &str| {
        rest.iter()
            .any(|w| *w == flag || w.strip_prefix(flag).is_some_and(|r| r.starts_with('=')))
    };
    let (cloud, token) = ("prints cloud credentials", "prints an access token");
    match first {
        // `env` with no command after it (the wrapper stripper left it as
        // the command) prints the environment, as printenv does.
        "env" | "printenv" => Some("prints the environment"),
        r if READERS.contains(&r) && subs.iter().any(|w| secret_file(w)) => {
            Some("prints a secrets file")
        }
        "aws" => {
            let plain = pair(&is(&["configure"]), &is(&["get", "export-credentials"]))
                || pair(
                    &is(&["sts"]),
                    &is(&["get-session-token", "assume-role", "get-federation-token"]),
                )
                || pair(&is(&["ecr", "ecr-public"]), &is(&["get-login-password"]))
                || pair(&is(&["secretsmanager"]), &is(&["get-secret-value"]))
                || pair(&is(&["codeartifact"]), &is(&["get-authorization-token"]));
            let decrypted = has("--with-decryption")
                && pair(
                    &is(&["ssm"]),
                    &is(&["get-parameter", "get-parameters", "get-parameters-by-path"]),
                );
            (plain || decrypted).then_some(cloud)
        }
        "gcloud" => (pair(&is(&["auth"]), &|w| w.starts_with("print-"))
            || pair(&is(&["versions"]), &is(&["access"])))
        .then_some(cloud),
        "az" => (pair(&is(&["account"]), &is(&["get-access-token"]))
            || pair(&is(&["secret"]), &is(&["show", "download"])))
        .then_some(cloud),
        "gh" | "glab" => (pair(&is(&["auth"]), &is(&["token"]))
            || (pair(&is(&["auth"]), &is(&["status"])) && (has("--show-token") || has("-t"))))
        .then_some(token),
        "kubectl" | "oc" | "k3s" => {
            let secret = |w: &str| {
                w.split(',')
                    .any(|r| matches!(r.split('/').next(), Some("secret" | "secrets")))
            };
            (pair(&is(&["get", "describe", "edit"]), &secret)
                || pair(&is(&["create"]), &is(&["token"]))
                || (pair(&is(&["config"]), &is(&["view"])) && has("--raw")))
            .then_some("prints cluster secrets")
        }
        "vault" | "bao" => (matches!(subs.first(), Some(&("read" | "login" | "unwrap" | "print")))
            || pair(&is(&["kv"]), &is(&["get"]))
            || pair(&is(&["token"]), &is(&["create", "lookup"])))
        .then_some("prints vault secrets"),
        "op" => (matches!(subs.first(), Some(&("read" | "inject")))
            || pair(&is(&["item", "document"]), &is(&["get"])))
        .then_some("prints password manager secrets"),
        // `pass NAME` and `pass show NAME` print the entry; the other
        // subcommands manage the store.
        "pass" | "gopass" => subs
            .first()
            .is_some_and(|s| !PASS_SUBCOMMANDS.contains(s))
            .then_some("prints password manager secrets"),
        "doppler" | "infisical" => {
            matches!(subs.first(), Some(&("secrets" | "export"))).then_some("prints secrets")
        }
        "sops" => (has("-d") || has("--decrypt") || subs.first() == Some(&"decrypt"))
            .then_some("prints decrypted secrets"),
        "git" => {
            // `git show HEAD:.env`, `git cat-file -p main:config/.env`.
            let blob = matches!(subs.first(), Some(&("show" | "cat-file")))
                && subs[1..]
                    .iter()
                    .any(|w| w.split_once(':').is_some_and(|(_, path)| secret_file(path)));
            if blob {
                return Some("prints a secrets file");
            }
            pair(&is(&["credential"]), &is(&["fill", "get"])).then_some("prints git credentials")
        }
        "heroku" => subs.contains(&"auth:token").then_some(token),
        "npm" | "pnpm" | "yarn" => pair(&is(&["token"]), &is(&["create"])).then_some(token),
        "docker" | "podman" => {
            pair(&is(&["secret"]), &is(&["inspect"])).then_some("prints container secrets")
        }
        "security" => (subs
            .first()
            .is_some_and(|s| s.starts_with("find-") && s.ends_with("-password"))
            && (has("-w") || has("-g")))
        .then_some("prints a keychain password"),
        _ => None,
    }
}

/// `pass` subcommands that manage the store rather than show an entry.
const PASS_SUBCOMMANDS: &[&str] = &[
    "init", "ls", "list", "find", "search", "grep", "insert", "add", "edit", "generate", "rm",
    "remove", "delete", "mv", "rename", "cp", "copy", "git", "help", "version",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(line: &str) -> bool {
        let argv: Vec<&str> = line.split(' ').collect();
        prints_secrets(&argv).is_some()
    }

    #[test]
    fn commands_that_print_secrets() {
        for line in [
            "env",
            "env -0",
            "env -u HOME",
            "/usr/bin/env",
            "printenv",
            "printenv AWS_SECRET_ACCESS_KEY",
            "timeout 5 printenv",
            "cat .env",
            "cat .env.local",
            "cat -n config/.env.production",
            "less ~/.ssh/id_rsa",
            "head -3 id_ed25519",
            "cat server.key",
            "cat tls.pem",
            "cat ~/.netrc",
            "cat ~/.aws/credentials",
            "cat ~/.docker/config.json",
            "cat ~/.kube/config",
            "cat prod.tfvars",
            "aws configure get aws_secret_access_key",
            "aws configure export-credentials",
            "aws sts get-session-token",
            "aws ecr get-login-password --region eu-west-1",
            "aws secretsmanager get-secret-value --secret-id x",
            "aws ssm get-parameter --name x --with-decryption",
            "gcloud auth print-access-token",
            "gcloud secrets versions access latest --secret=x",
            "az account get-access-token",
            "gh auth token",
            "gh auth status --show-token",
            "kubectl get secret -o yaml",
            "kubectl get secrets -o json",
            "kubectl get secret/db -o jsonpath={.data}",
            "kubectl -n prod get secret db -o yaml",
            "kubectl describe secrets",
            "kubectl create token default",
            "kubectl config view --raw",
            "vault read secret/db",
            "vault kv get secret/db",
            "vault token create",
            "op read op://vault/item/field",
            "op item get x",
            "pass show web/github",
            "aws --profile prod configure get aws_secret_access_key",
            "pass web/github",
            "sops -d secrets.enc.yaml",
            "git credential fill",
            "git show HEAD:.env",
            "git cat-file -p main:config/.env.production",
            "heroku auth:token",
            "security find-generic-password -s x -w",
            "docker secret inspect x",
            "doppler secrets",
        ] {
            assert!(secret(line), "{line}");
        }
    }

    #[test]
    fn ordinary_commands_do_not() {
        for line in [
            "env CI=1 pytest",
            "env -u HOME cargo test",
            "cat README.md",
            "cat id_rsa.pub",
            "cat src/environment.rs",
            "aws s3 ls",
            "aws configure set region x",
            "aws ssm get-parameter --name x",
            "gh pr list",
            "gh auth status",
            "kubectl get pods -o yaml",
            "kubectl get deployments",
            "vault status",
            "pass ls",
            "pass generate x 20",
            "sops secrets.enc.yaml",
            "git status",
            "git show HEAD:src/main.rs",
            "cargo test",
            "grep -rn TOKEN src",
            "npm token list",
        ] {
            assert!(!secret(line), "{line}");
        }
    }
}
