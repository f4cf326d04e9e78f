//! `webcorpus train classifier|combiner|host-evidence|boilernet`: the binary's side of the
//! training commands (reading the sets, progress, printing the scores, writing the model files);
//! the training itself is `webcorpus::train`.

use crate::{load_config, load_sets, worker_threads};
use anyhow::{Context, Result};
use webcorpus::cli::{TrainBoilernetArgs, TrainClassifierArgs, TrainCombinerArgs, TrainHostEvidenceArgs};
use webcorpus::extract::combiner::CombinerModel;

/// `webcorpus train classifier`: extract the typed pages, optionally run the feature ablation,
/// train with per-epoch validation scores, print the test scores, save the model.
pub(crate) fn classifier(args: TrainClassifierArgs) -> Result<()> {
    use indicatif::{ProgressBar, ProgressStyle};
    use webcorpus::classify::data::{load_pages, Split};
    use webcorpus::train::classifier::{ablation, confusion_by_type, evaluate, train, TrainOptions};
    const FOCUS: &str = "modern2026-dev";
    let config = load_config(&args.config)?;
    let sets = load_sets(&config, &args.data)?;
    let threads = worker_threads(args.threads);
    let style = ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {msg}")
        .expect("valid template")
        .progress_chars("=> ");
    let started = std::time::Instant::now();
    let bar = ProgressBar::new(0).with_style(style.clone()).with_prefix("extract");
    let pages = load_pages(&sets, &config.extract_settings(), threads, args.limit, &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let extract_time = started.elapsed();
    let part = |s: Split| pages.iter().filter(|p| p.split == s).collect::<Vec<_>>();
    let (tr, va, te) = (part(Split::Train), part(Split::Validation), part(Split::Test));
    println!(
        "{} typed pages ({} articles) of {} in {:.1}s; train {}, validation {}, test {} (split by site); {} unreadable",
        pages.len(),
        pages.iter().filter(|p| p.article).count(),
        sets.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", "),
        extract_time.as_secs_f64(),
        tr.len(),
        va.len(),
        te.len(),
        pages.iter().filter(|p| p.features.is_none()).count()
    );
    let mut opts = TrainOptions {
        seed: args.seed,
        epochs: args.epochs.max(1),
        hidden: args.hidden,
        l2: args.l2,
        balance: args.balanced,
        ..TrainOptions::default()
    };
    if !args.features.is_empty() {
        opts.features = args.features.clone();
    }
    if args.ablation {
        println!("feature ablation: site-grouped 5-fold cross-validation on the train + validation sites");
        let pool: Vec<_> = tr.iter().chain(&va).copied().collect();
        ablation(&pool, &opts, FOCUS, &mut |row| {
            println!("  {:<26} all: {}   {FOCUS}: {}", row.name, row.all.line(), row.focus.line());
        })?;
    }
    let train_started = std::time::Instant::now();
    let bar = ProgressBar::new(opts.epochs as u64).with_style(style).with_prefix("train");
    let stride = (opts.epochs / 20).max(1);
    let trained = train(&tr, &va, &opts, &mut |e| {
        bar.inc(1);
        let line = format!(
            "epoch {:>4}: train loss {:.4} · validation loss {:.4} · {}",
            e.epoch,
            e.train_loss,
            e.val_loss,
            e.val.line()
        );
        bar.set_message(line.clone());
        if e.epoch == 1 || e.epoch % stride == 0 {
            if bar.is_hidden() {
                println!("{line}");
            } else {
                bar.println(line);
            }
        }
    })?;
    bar.finish_and_clear();
    let train_time = train_started.elapsed();
    let test = evaluate(&trained.mlp, &te);
    let focus: Vec<_> = te.iter().copied().filter(|p| p.set == FOCUS).collect();
    let test_focus = evaluate(&trained.mlp, &focus);
    println!(
        "kept epoch {} (lowest validation loss); training took {:.1}s",
        trained.best_epoch,
        train_time.as_secs_f64()
    );
    println!("test (held-out sites): {}", test.line());
    println!("test, {FOCUS} only:   {}", test_focus.line());
    println!("test pages by type (classified article / other):");
    for (t, a, o) in confusion_by_type(&trained.mlp, &te) {
        println!("  {t:<32} {a:>4} / {o:<4}");
    }
    let score = |m: &webcorpus::train::classifier::Metrics| {
        serde_json::json!({
            "accuracy": m.accuracy(),
            "precision": m.precision(),
            "recall": m.recall(),
            "f1": m.f1(),
            "confusion": m,
        })
    };
    let header = serde_json::json!({
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "data": sets.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
        "seed": opts.seed,
        "epochs": opts.epochs,
        "best_epoch": trained.best_epoch,
        "pages": {"train": tr.len(), "validation": va.len(), "test": te.len()},
        "test": score(&test),
        "test_modern2026": score(&test_focus),
    });
    trained.mlp.to_model_file(header).save(&args.out)?;
    let size = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    println!("model written to {} ({size} bytes, features: {})", args.out.display(), trained.mlp.features.join(","));
    Ok(())
}

/// `webcorpus train combiner`: label the blocks, fit the trees on the training sites, print
/// the held-out comparison with the rule-based default, write the model.
pub(crate) fn combiner(args: TrainCombinerArgs) -> Result<()> {
    use webcorpus::extract::combiner::gbdt::GbdtParams;
    use webcorpus::train::combiner::{load_blocks, train};
    let config = load_config(&args.config)?;
    let sets = load_sets(&config, &args.data)?;
    let threads = worker_threads(args.threads);
    let started = std::time::Instant::now();
    let data = load_blocks(&sets, threads, args.snippet_power);
    println!("labelled {} blocks in {:.1}s:", data.targets.len(), started.elapsed().as_secs_f64());
    for (name, (pages, labelled)) in data.sets.iter().zip(&data.pages) {
        println!("  {name:<18} {labelled:>4}/{pages:<4} pages with labelled blocks");
    }
    let params = GbdtParams {
        trees: args.trees,
        max_depth: args.depth,
        learning_rate: args.lr,
        seed: args.seed,
        bags: args.bags as usize,
        column_sample: args.column_sample,
        ..GbdtParams::default()
    };
    let started = std::time::Instant::now();
    let (model, _) = train(&data, &params, args.threshold, args.page_power, None, threads);
    println!("trained {} × {} trees on every site in {:.1}s", args.bags, args.trees, started.elapsed().as_secs_f64());
    let json = serde_json::to_string(&model)?;
    std::fs::write(&args.out, json).with_context(|| format!("writing {}", args.out.display()))?;
    println!("wrote {}", args.out.display());
    if let Some(dir) = &args.cv {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for fold in 0..webcorpus::eval::dataset::SITE_FOLDS {
            let started = std::time::Instant::now();
            let (fold_model, scores) = train(&data, &params, args.threshold, args.page_power, Some(fold), threads);
            let path = dir.join(format!("fold-{fold}.json"));
            std::fs::write(&path, serde_json::to_string(&fold_model)?)
                .with_context(|| format!("writing {}", path.display()))?;
            println!(
                "fold {fold}: trained in {:.1}s, wrote {}; its held-out sites, word-weighted block P / R / F1:",
                started.elapsed().as_secs_f64(),
                path.display()
            );
            for s in &scores {
                println!(
                    "  {:<18} {:>6} blocks  combiner {:.3} / {:.3} / {:.3}   rules {:.3} / {:.3} / {:.3}",
                    s.set, s.blocks, s.combiner.0, s.combiner.1, s.combiner.2, s.rules.0, s.rules.1, s.rules.2
                );
            }
        }
    }
    Ok(())
}

pub(crate) fn host_evidence(args: TrainHostEvidenceArgs) -> Result<()> {
    use webcorpus::extract::combiner::gbdt::GbdtParams;
    use webcorpus::train::host_evidence::{load_host_rows, train};
    let config = load_config(&args.config)?;
    let sets = load_sets(&config, &args.data)?;
    let threads = worker_threads(args.threads);
    let folds = (0..webcorpus::eval::dataset::SITE_FOLDS)
        .map(|k| CombinerModel::load(&args.combiner_cv.join(format!("fold-{k}.json"))).map(std::sync::Arc::new))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("reading the combiner's fold models of {}", args.combiner_cv.display()))?;
    let learn = webcorpus::domain::LearnParams { min_sample: args.min_sample.max(1), ..config.learn.clone() };
    let started = std::time::Instant::now();
    let rows = load_host_rows(&sets, &folds, &config.extract_settings(), &learn, threads);
    println!(
        "{} hosts, {} labelled blocks in {:.1}s:",
        rows.hosts.len(),
        rows.data.targets.len(),
        started.elapsed().as_secs_f64()
    );
    for (name, (pages, with_rows)) in rows.data.sets.iter().zip(&rows.data.pages) {
        println!("  {name:<18} {with_rows:>4}/{pages:<4} host pages where the host model applies");
    }
    let params = GbdtParams {
        trees: args.trees,
        max_depth: args.depth,
        learning_rate: args.lr,
        min_child_rows: args.min_rows,
        bags: args.bags as usize,
        column_sample: 1.0,
        ..GbdtParams::default()
    };
    let (model, _) = train(&rows, &params, args.threshold, None, threads);
    std::fs::write(&args.out, serde_json::to_string(&model)?)
        .with_context(|| format!("writing {}", args.out.display()))?;
    println!("wrote {}", args.out.display());
    if args.cv {
        for fold in 0..webcorpus::eval::dataset::SITE_FOLDS {
            let (fold_model, scores) = train(&rows, &params, args.threshold, Some(fold), threads);
            let path = args.combiner_cv.join(format!("host-evidence-fold-{fold}.json"));
            std::fs::write(&path, serde_json::to_string(&fold_model)?)
                .with_context(|| format!("writing {}", path.display()))?;
            println!("fold {fold}: wrote {}; its held-out hosts, word-weighted block P / R / F1:", path.display());
            for s in scores.iter().filter(|s| s.blocks > 0) {
                let f = |t: (f64, f64, f64)| format!("{:.3} / {:.3} / {:.3}", t.0, t.1, t.2);
                println!(
                    "  {:<18} {:>6} blocks  learned {}   rules {}   unlearned {}",
                    s.set,
                    s.blocks,
                    f(s.learned),
                    f(s.rules),
                    f(s.unlearned)
                );
            }
        }
    }
    Ok(())
}

/// `webcorpus train boilernet`: load and label the sets, train with a progress bar and
/// per-epoch validation, write the best epoch's model with its provenance.
pub(crate) fn boilernet(args: TrainBoilernetArgs) -> Result<()> {
    use indicatif::{ProgressBar, ProgressStyle};
    use webcorpus::extract::boilernet::NetConfig;
    use webcorpus::train::boilernet::{load_pages, train, TrainEvent, TrainOptions};
    let config = load_config(&args.config)?;
    let sets = load_sets(&config, &args.data)?;
    let threads = worker_threads(args.threads);
    let started = std::time::Instant::now();
    let (pages, stats) = load_pages(&sets, args.limit, threads);
    println!(
        "labelled {} pages in {:.1}s (block = content when > 50 % of its words align with the gold):",
        pages.len(),
        started.elapsed().as_secs_f64()
    );
    for s in &stats {
        println!(
            "  {:<18} {:>4}/{:<4} pages labelled ({} held out, {} unreadable), {:>6} blocks, {:>6} labelled, {:>6} content",
            s.set, s.labelled_pages, s.pages, s.holdout_pages, s.unreadable, s.blocks, s.labelled_blocks, s.content_blocks
        );
    }
    let opts = TrainOptions {
        net: NetConfig { dense: args.dense, hidden: args.hidden, layers: args.layers, dropout: args.dropout },
        epochs: args.epochs,
        batch: args.batch,
        lr: args.lr,
        seed: args.seed,
        threads,
        max_tags: args.tags,
        max_words: args.words,
    };
    let style = ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} {elapsed} {msg}")
        .expect("valid template")
        .progress_chars("=> ");
    let bar = ProgressBar::new(0).with_style(style).with_prefix("epoch 1");
    let train_started = std::time::Instant::now();
    let trained = train(&pages, &opts, &mut |e| match e {
        TrainEvent::Batch { done, total, loss } => {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(format!("loss {loss:.4}"));
        }
        TrainEvent::Epoch(r) => {
            let line = format!(
                "epoch {:>3}: train loss {:.4} · validation loss {:.4} · block P {:.3} R {:.3} F1 {:.3} · {:.1}s",
                r.epoch,
                r.train_loss,
                r.val_loss,
                r.val.precision(),
                r.val.recall(),
                r.val.f1(),
                r.secs
            );
            if bar.is_hidden() {
                println!("{line}");
            } else {
                bar.println(line);
            }
            bar.set_prefix(format!("epoch {}", r.epoch + 1));
            bar.set_position(0);
        }
    })?;
    bar.finish_and_clear();
    let secs = train_started.elapsed().as_secs_f64();
    let best = &trained.epochs[trained.best_epoch - 1];
    println!(
        "kept epoch {} (best validation block F1 {:.4}); {} training / {} validation pages; training took {:.1}s on {threads} threads",
        trained.best_epoch,
        best.val.f1(),
        trained.pages.0,
        trained.pages.1,
        secs
    );
    let mut model = trained.model;
    model.provenance = serde_json::json!({
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "data": sets.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
        "seed": args.seed,
        "epochs": args.epochs,
        "batch": args.batch,
        "lr": args.lr,
        "best_epoch": trained.best_epoch,
        "class_weights": trained.class_weights,
        "pages": {"train": trained.pages.0, "validation": trained.pages.1},
        "labels": stats,
        "validation": trained.epochs,
        "train_secs": secs,
        "threads": threads,
    });
    model.to_model_file().save(&args.out)?;
    let size = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    println!("model written to {} ({size} bytes)", args.out.display());
    Ok(())
}
