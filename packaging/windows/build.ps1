# Windows: build the app folder and the installer with one command, in the build venv
# (python -m venv venv; venv\Scripts\activate; pip install torch==2.13.0; pip install pyinstaller -e ".[models]"),
# with Inno Setup 6 installed (iscc on PATH or in its default folder):
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
# Output: dist\speechstudio-VERSION-windows-x64-(cpu|cudaXYZ)-setup.exe
$ErrorActionPreference = "Stop"
$Root = Resolve-Path (Join-Path $PSScriptRoot "..\..")
Set-Location $Root
$Version = python -c "import re; print(re.search(r'^__version__ = \""([^\""]+)\""', open('speechstudio/__init__.py').read(), re.M).group(1))"
$Flavor = python -c "from speechstudio.doctor.gpu import torch_build as b; c = b()['cuda']; print('cuda' + c.replace('.', '') if c else 'cpu')"
python -m PyInstaller --noconfirm --distpath dist\app --workpath dist\work packaging\speechstudio.spec
if ($LASTEXITCODE -ne 0) { throw "PyInstaller failed" }
$Iscc = (Get-Command iscc -ErrorAction SilentlyContinue).Source
if (-not $Iscc) { $Iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
& $Iscc "/DAppVersion=$Version" "/DFlavor=$Flavor" packaging\windows\speechstudio.iss
if ($LASTEXITCODE -ne 0) { throw "Inno Setup failed" }
& dist\app\SpeechStudio\SpeechStudio.exe --version
