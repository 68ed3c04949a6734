//! What a tool needs from its environment before it can be offered:
//! [`Requirements`] (`#[tool(requires(env = "..", program = "..", feature = ".."))]`).

use std::borrow::Cow;

/// What a tool needs before a registry offers it: environment variables,
/// programs on the `PATH`, and features.
///
/// A registry checks them when it is built. A tool whose requirements are
/// not met is not offered; the registry's report names what is missing, and
/// a call by name is an error that says the same.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Requirements {
    /// Environment variables that must be set and not empty.
    pub env: Cow<'static, [Cow<'static, str>]>,
    /// Programs that must be found on the `PATH`.
    pub programs: Cow<'static, [Cow<'static, str>]>,
    /// Features that must be on.
    pub features: Cow<'static, [Feature]>,
}

/// A feature a tool requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feature {
    /// The feature's name.
    pub name: Cow<'static, str>,
    /// Whether the crate that defined the tool was built with a Cargo
    /// feature of this name (`#[tool]` reads `cfg!(feature = "..")` in the
    /// defining crate). A feature not built in is still met when the
    /// registry turns it on by name.
    pub built: bool,
}

impl Requirements {
    /// No requirements.
    pub const NONE: Requirements = Requirements {
        env: Cow::Borrowed(&[]),
        programs: Cow::Borrowed(&[]),
        features: Cow::Borrowed(&[]),
    };

    /// Whether nothing is required.
    pub fn is_empty(&self) -> bool {
        self.env.is_empty() && self.programs.is_empty() && self.features.is_empty()
    }
}

impl Requirements {
    /// No requirements yet; add them with [`env`](Self::env),
    /// [`program`](Self::program) and [`feature`](Self::feature).
    ///
    /// ```
    /// use tool_runtime::spec::Requirements;
    ///
    /// let needs = Requirements::new().env("GITHUB_TOKEN").program("git").feature("search");
    /// assert_eq!(needs.env[0], "GITHUB_TOKEN");
    /// assert!(!needs.features[0].built);
    /// ```
    pub fn new() -> Self {
        Self::NONE
    }

    /// Also requires the environment variable `name`, set and not empty.
    pub fn env(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.env.to_mut().push(name.into());
        self
    }

    /// Also requires the program `name` on the `PATH`.
    pub fn program(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.programs.to_mut().push(name.into());
        self
    }

    /// Also requires the feature `name`, not built in: met only when the
    /// registry turns it on ([`RegistryBuilder::features`](crate::RegistryBuilder::features)).
    pub fn feature(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.features.to_mut().push(Feature {
            name: name.into(),
            built: false,
        });
        self
    }

    /// These requirements and `other`'s together.
    pub fn and(mut self, other: &Requirements) -> Self {
        self.env.to_mut().extend(other.env.iter().cloned());
        self.programs
            .to_mut()
            .extend(other.programs.iter().cloned());
        self.features
            .to_mut()
            .extend(other.features.iter().cloned());
        self
    }

    /// What is missing, in the order the requirements are written:
    /// environment variables unset or empty, programs not found on the
    /// `PATH`, features neither built in nor among `turned_on`. Empty when
    /// every requirement is met.
    pub fn missing<S: AsRef<str>>(&self, turned_on: &[S]) -> Vec<Missing> {
        let mut missing = Vec::new();
        for name in self.env.iter() {
            let set = std::env::var_os(name.as_ref()).is_some_and(|value| !value.is_empty());
            if !set {
                missing.push(Missing::Env(name.to_string()));
            }
        }
        for name in self.programs.iter() {
            if !on_path(name.as_ref()) {
                missing.push(Missing::Program(name.to_string()));
            }
        }
        for feature in self.features.iter() {
            let on = feature.built || turned_on.iter().any(|on| on.as_ref() == feature.name);
            if !on {
                missing.push(Missing::Feature(feature.name.to_string()));
            }
        }
        missing
    }
}

/// One requirement a tool has that is not met.
///
/// Its `Display` text says what is missing, as a call of the tool reports
/// it: `environment variable GITHUB_TOKEN is not set`, `program rg is not
/// on the PATH`, `feature search is not on`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Missing {
    /// An environment variable that is not set, or set empty.
    Env(String),
    /// A program not found on the `PATH`.
    Program(String),
    /// A feature neither built in nor turned on by the registry.
    Feature(String),
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Missing::Env(name) => write!(f, "environment variable {name} is not set"),
            Missing::Program(name) => write!(f, "program {name} is not on the PATH"),
            Missing::Feature(name) => write!(f, "feature {name} is not on"),
        }
    }
}

/// Whether `name` is a program this process could run: a name with a path
/// separator as that path, any other in each folder of the `PATH`, in order.
/// An executable file on Unix (any of its execute bits set); on Windows a
/// file with the name as given or with one of `PATHEXT`'s extensions.
///
/// Written here rather than taken from `which`, whose `libc` and build
/// script would be most of what this check costs a user's clean build
/// (docs/architecture.md gives the figures).
fn on_path(name: &str) -> bool {
    use std::path::{Path, PathBuf};
    if name.is_empty() {
        return false;
    }
    let candidates = |path: PathBuf| -> Vec<PathBuf> {
        let mut all = vec![path.clone()];
        if cfg!(windows) {
            let extensions =
                std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
            for extension in extensions.split(';').filter(|e| !e.is_empty()) {
                let mut with = path.clone().into_os_string();
                with.push(extension);
                all.push(with.into());
            }
        }
        all
    };
    let runnable = |path: &Path| -> bool {
        let Ok(metadata) = std::fs::metadata(path) else {
            return false;
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
        }
        #[cfg(not(unix))]
        {
            metadata.is_file()
        }
    };
    if Path::new(name).components().count() > 1 || name.contains(std::path::MAIN_SEPARATOR) {
        return candidates(PathBuf::from(name)).iter().any(|p| runnable(p));
    }
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path)
        .filter(|folder| !folder.as_os_str().is_empty())
        .any(|folder| candidates(folder.join(name)).iter().any(|p| runnable(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_as_a_shell_would() {
        // `sh` is on every Unix PATH; a file without execute bits is not a
        // program, and a path is taken as it is.
        #[cfg(unix)]
        {
            assert!(on_path("sh"));
            assert!(on_path("/bin/sh"));
            let dir = std::env::temp_dir().join(format!("requires-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let plain = dir.join("not-a-program");
            std::fs::write(&plain, "#!/bin/sh\n").unwrap();
            assert!(!on_path(plain.to_str().unwrap()));
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert!(on_path(plain.to_str().unwrap()));
            assert!(!on_path(dir.to_str().unwrap()), "a folder is not a program");
            std::fs::remove_dir_all(&dir).unwrap();
        }
        assert!(!on_path("tool-runtime-no-such-program"));
        assert!(!on_path(""));
    }

    #[test]
    fn reports_what_is_missing_in_order() {
        let needs = Requirements::new()
            .env("TOOL_RUNTIME_REQUIRES_TEST_UNSET")
            .program("tool-runtime-no-such-program")
            .feature("search")
            .feature("other");
        let missing = needs.missing(&["other"]);
        assert_eq!(
            missing,
            [
                Missing::Env("TOOL_RUNTIME_REQUIRES_TEST_UNSET".into()),
                Missing::Program("tool-runtime-no-such-program".into()),
                Missing::Feature("search".into()),
            ]
        );
        assert_eq!(
            missing[0].to_string(),
            "environment variable TOOL_RUNTIME_REQUIRES_TEST_UNSET is not set"
        );
    }

    #[test]
    fn a_built_feature_is_met() {
        let needs = Requirements {
            features: Cow::Owned(vec![Feature {
                name: "search".into(),
                built: true,
            }]),
            ..Requirements::NONE
        };
        assert!(needs.missing::<&str>(&[]).is_empty());
    }
}
