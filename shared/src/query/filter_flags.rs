//! The command line's filter flags (the `cli` feature), derived from the
//! one table of filters ([`FILTERS`]): a flag per filter, its id the
//! filter's name, repeatable for a list, its value checked where the table
//! says (a bad value is a usage error, exit 2), its help the table's (a
//! front end rewords the tools' names in it as its own, by the flag's id).

use super::filter_args::{CallFilters, FilterArgs, Shape, FILTERS};
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

impl Args for CallFilters {
    fn augment_args(cmd: Command) -> Command {
        FILTERS.iter().fold(cmd, |cmd, f| {
            let help = f.help;
            let mut arg = Arg::new(f.name).long(f.flag).help(help);
            arg = match f.shape {
                Shape::Flag(..) => arg.action(ArgAction::SetTrue),
                Shape::List(..) => arg
                    .action(ArgAction::Append)
                    .help(format!("{help} (repeatable)")),
                Shape::Text(..) | Shape::Seconds(..) => arg.action(ArgAction::Set),
            };
            if !matches!(f.shape, Shape::Flag(..)) {
                arg = arg.value_name(f.name.to_uppercase());
            }
            if let Some(check) = f.check {
                arg = arg.value_parser(check);
            }
            cmd.arg(arg)
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for CallFilters {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut args = FilterArgs::default();
        for f in FILTERS {
            let values: Vec<String> = match f.shape {
                Shape::Flag(..) => m.get_flag(f.name).then(String::new).into_iter().collect(),
                _ => m
                    .get_many::<String>(f.name)
                    .into_iter()
                    .flatten()
                    .cloned()
                    .collect(),
            };
            f.set(&mut args, values);
        }
        Ok(CallFilters(args))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}
