"""Record checkpoint trees written by the real frameworks on a GPU node, with a timeline of what each run's
directory held after every change (names appear/disappear), for traintop's fixtures. Each case runs in its own
subprocess so that one failure does not lose the others."""
import json, os, subprocess, sys, time, threading, tarfile, traceback

OUT = os.environ.get('OUT', '/tmp/out')
ROOT = '/tmp/trees'
CASES = sys.argv[1:]


def snapshot(root):
    seen = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in ('__pycache__',)]
        for name in files + [x for x in dirs]:
            p = os.path.join(d, name)
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            kind = 'link' if os.path.islink(p) else ('dir' if os.path.isdir(p) else 'file')
            seen[os.path.relpath(p, root)] = (kind, st.st_size if kind == 'file' else 0)
    return seen


class Timeline(threading.Thread):
    """Polls the run dir every 20 ms and records each path's appearance and disappearance, with the time."""

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root, self.events, self.stop_flag, self.t0 = root, [], False, time.time()

    def run(self):
        prev = {}
        while True:
            cur = snapshot(self.root)
            t = round(time.time() - self.t0, 3)
            for p in sorted(set(cur) - set(prev)):
                self.events.append({'t': t, 'event': 'add', 'path': p, 'kind': cur[p][0]})
            for p in sorted(set(prev) - set(cur)):
                self.events.append({'t': t, 'event': 'remove', 'path': p})
            prev = cur
            if self.stop_flag:
                break
            time.sleep(0.02)

    def finish(self, name):
        self.stop_flag = True
        self.join()
        with open(os.path.join(ROOT, name + '.timeline.jsonl'), 'w') as f:
            for e in self.events:
                f.write(json.dumps(e) + '\n')


def tiny_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    return GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=16, vocab_size=64, n_positions=32))


def token_data(n=64):
    import torch
    from torch.utils.data import Dataset

    class D(Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            g = torch.Generator().manual_seed(i)
            x = torch.randint(0, 64, (16,), generator=g)
            return {'input_ids': x, 'labels': x.clone()}
    return D()


def case_hf_best(run):
    from transformers import Trainer, TrainingArguments
    args = TrainingArguments(output_dir=run, max_steps=30, save_strategy='steps', save_steps=5, eval_strategy='steps',
                             eval_steps=5, save_total_limit=2, load_best_model_at_end=True,
                             metric_for_best_model='eval_loss', greater_is_better=False, logging_steps=1,
                             per_device_train_batch_size=4, report_to=[], learning_rate=5e-3)
    Trainer(model=tiny_gpt2(), args=args, train_dataset=token_data(), eval_dataset=token_data(8)).train()


def case_hf_nolimit_epoch(run):
    from transformers import Trainer, TrainingArguments
    args = TrainingArguments(output_dir=run, num_train_epochs=3, save_strategy='epoch', logging_steps=2,
                             per_device_train_batch_size=16, report_to=[])
    Trainer(model=tiny_gpt2(), args=args, train_dataset=token_data()).train()


def case_hf_sigterm_jit(run):
    """transformers' opt-in JIT checkpoint: SIGTERM during training, the Trainer saves at the next step and stops."""
    import signal
    from transformers import Trainer, TrainingArguments, TrainerCallback

    class Kill(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step == 7:
                os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.3 if state.global_step >= 7 else 0)
    kw = dict(output_dir=run, max_steps=40, save_strategy='steps', save_steps=20, logging_steps=1,
              per_device_train_batch_size=4, report_to=[])
    try:
        args = TrainingArguments(enable_jit_checkpoint=True, **kw)
    except TypeError as e:
        print('no enable_jit_checkpoint:', e)
        args = TrainingArguments(**kw)
    Trainer(model=tiny_gpt2(), args=args, train_dataset=token_data(), callbacks=[Kill()]).train()


def lightning_module():
    import torch
    import lightning as L

    class M(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(8, 1)

        def training_step(self, batch, i):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.layer(x), y)
            self.log('train_loss', loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    def data():
        g = torch.Generator().manual_seed(0)
        x = torch.randn(80, 8, generator=g)
        return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4)
    return M(), data()


def case_lightning_default(run):
    import lightning as L
    m, d = lightning_module()
    L.Trainer(default_root_dir=run, max_epochs=3, accelerator='gpu', devices=1, enable_progress_bar=False).fit(m, d)


def case_lightning_dirpath_keep3(run):
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint
    m, d = lightning_module()
    ck = ModelCheckpoint(dirpath=os.path.join(run, 'ckpts'), every_n_train_steps=10, save_top_k=3, monitor='step',
                         mode='max', save_last='link', filename='{step}')
    L.Trainer(default_root_dir=run, max_steps=75, callbacks=[ck], accelerator='gpu', devices=1,
              enable_progress_bar=False, logger=False).fit(m, d)


def case_lightning_time_interval(run):
    import datetime
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint, Callback

    class Slow(Callback):
        def on_train_batch_end(self, *a, **k):
            time.sleep(0.05)
    m, d = lightning_module()
    ck = ModelCheckpoint(train_time_interval=datetime.timedelta(seconds=1), save_top_k=-1)
    L.Trainer(default_root_dir=run, max_steps=80, callbacks=[ck, Slow()], accelerator='gpu', devices=1,
              enable_progress_bar=False).fit(m, d)


def case_lightning_hpc_sigusr1(run):
    """Lightning's SLURM requeue handler: SIGUSR1 under a SLURM environment writes hpc_ckpt_N.ckpt."""
    import signal
    import lightning as L
    from lightning.pytorch.callbacks import Callback
    from lightning.pytorch.plugins.environments import SLURMEnvironment
    os.environ.update({'SLURM_NTASKS': '1', 'SLURM_JOB_NAME': 'train', 'SLURM_JOB_ID': '4242', 'SLURM_PROCID': '0',
                       'SLURM_LOCALID': '0', 'SLURM_NODEID': '0', 'SLURM_NTASKS_PER_NODE': '1'})
    bindir = os.path.join(ROOT, 'fake-bin')
    os.makedirs(bindir, exist_ok=True)
    with open(os.path.join(bindir, 'scontrol'), 'w') as f:
        f.write('#!/bin/sh\necho "scontrol $*" >> %s/scontrol-calls.txt\n' % run)
    os.chmod(os.path.join(bindir, 'scontrol'), 0o755)
    os.environ['PATH'] = bindir + ':' + os.environ['PATH']

    class Usr1(Callback):
        def on_train_batch_end(self, trainer, *a, **k):
            if trainer.global_step == 12:
                os.kill(os.getpid(), signal.SIGUSR1)
    m, d = lightning_module()
    L.Trainer(default_root_dir=run, max_steps=30, callbacks=[Usr1()], accelerator='gpu', devices=1,
              plugins=[SLURMEnvironment(auto_requeue=True)], enable_progress_bar=False).fit(m, d)


def case_orbax_keep3(run):
    import numpy as np
    import orbax.checkpoint as ocp
    opts = ocp.CheckpointManagerOptions(max_to_keep=3, save_interval_steps=2)
    mngr = ocp.CheckpointManager(os.path.join(run, 'ckpt'), options=opts)
    for step in range(0, 12):
        state = {'w': np.arange(16, dtype=np.float32) * step, 'step': np.int32(step)}
        mngr.save(step, args=ocp.args.StandardSave(state))
        time.sleep(0.1)
    mngr.wait_until_finished()
    mngr.close()


def case_accelerate_keep3(run):
    import torch
    from accelerate import Accelerator
    from accelerate.utils import ProjectConfiguration
    acc = Accelerator(project_config=ProjectConfiguration(project_dir=run, automatic_checkpoint_naming=True,
                                                          total_limit=3))
    model = torch.nn.Linear(8, 8)
    opt = torch.optim.AdamW(model.parameters())
    model, opt = acc.prepare(model, opt)
    for i in range(5):
        acc.save_state()
        time.sleep(0.1)


def case_timm_saver(run):
    import argparse
    import torch
    from timm.utils import CheckpointSaver
    model = torch.nn.Linear(8, 8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    saver = CheckpointSaver(model, opt, args=argparse.Namespace(model='linear'), checkpoint_dir=run,
                            recovery_dir=run, decreasing=True, max_history=3)
    for epoch, metric in enumerate([0.9, 0.7, 0.8, 0.5, 0.6, 0.65]):
        saver.save_checkpoint(epoch, metric=metric)
        time.sleep(0.1)
    saver.save_recovery(6, batch_idx=10)


def case_dcp_steps(run):
    import torch
    import torch.distributed.checkpoint as dcp
    model = torch.nn.Linear(8, 8).cuda()
    for step in (10, 20):
        dcp.save({'model': model.state_dict()}, checkpoint_id=os.path.join(run, 'checkpoint', f'step-{step}'))


def case_torch_formats(run):
    import torch
    os.makedirs(run, exist_ok=True)
    obj = {'epoch': 3, 'global_step': 120, 'state_dict': {'w': torch.arange(6.0)}, 'hyper_parameters': {'lr': 0.1},
           'callbacks': {"ModelCheckpoint{'monitor': 'train_loss', 'mode': 'min'}": {'best_k_models': {}}}}
    torch.save(obj, os.path.join(run, 'zip.pt'))
    torch.save(obj, os.path.join(run, 'legacy.pt'), _use_new_zipfile_serialization=False)


def main_case(name):
    run = os.path.join(ROOT, name)
    os.makedirs(run, exist_ok=True)
    tl = Timeline(run)
    tl.start()
    try:
        globals()['case_' + name.replace('-', '_')](run)
    finally:
        tl.finish(name)


if __name__ == '__main__' and os.environ.get('RECORD_CASE'):
    main_case(os.environ['RECORD_CASE'])
    sys.exit(0)

if __name__ == '__main__':
    os.makedirs(ROOT, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    names = CASES or [n[5:].replace('_', '-') for n in list(globals()) if n.startswith('case_')]
    versions = {}
    for mod in ('torch', 'transformers', 'lightning', 'accelerate', 'orbax.checkpoint', 'jax', 'timm', 'numpy'):
        r = subprocess.run([sys.executable, '-c', f'import {mod} as m; print(getattr(m, "__version__", "?"))'],
                           capture_output=True, text=True)
        versions[mod] = r.stdout.strip() or r.stderr.strip()[-200:]
    versions['python'] = sys.version.split()[0]
    gpu = subprocess.run(['nvidia-smi', '--query-gpu=name,driver_version', '--format=csv,noheader'],
                         capture_output=True, text=True)
    versions['gpu'] = gpu.stdout.strip()
    with open(os.path.join(ROOT, 'VERSIONS.json'), 'w') as f:
        json.dump(versions, f, indent=1)
    print(versions, flush=True)
    for name in names:
        t = time.time()
        env = dict(os.environ, RECORD_CASE=name, PYTHONUNBUFFERED='1', TOKENIZERS_PARALLELISM='false',
                   HF_HUB_OFFLINE='1', WANDB_DISABLED='true')
        with open(os.path.join(ROOT, name + '.log'), 'w') as log:
            try:
                r = subprocess.run([sys.executable, __file__], env=env, stdout=log, stderr=subprocess.STDOUT,
                                   timeout=120)
                rc = r.returncode
            except subprocess.TimeoutExpired:
                rc = 'timeout'
        print(f'{name}: rc={rc} in {time.time() - t:.1f}s', flush=True)
    with tarfile.open(os.path.join(OUT, 'trees.tar.xz'), 'w:xz') as tar:
        tar.add(ROOT, arcname='trees')
    print('tar', os.path.getsize(os.path.join(OUT, 'trees.tar.xz')), flush=True)
