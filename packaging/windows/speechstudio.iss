; Inno Setup script for the Windows installer (Inno Setup 6, https://jrsoftware.org/isinfo.php).
; Build the app first, then the installer (from the repository root, in the build venv):
;   pyinstaller --noconfirm --distpath dist\app --workpath dist\work packaging\speechstudio.spec
;   iscc /DAppVersion=0.1.0 /DFlavor=cpu packaging\windows\speechstudio.iss
; Output: dist\speechstudio-<version>-windows-x64-<flavor>-setup.exe (per-user install, no admin rights needed).
#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#ifndef Flavor
  #define Flavor "cpu"
#endif

[Setup]
AppId={{6C1E3F1B-2B8B-4E3A-9F0E-5D2A7C0B9A11}
AppName=SpeechStudio
AppVersion={#AppVersion}
AppPublisher=SpeechStudio developers
DefaultDirName={autopf}\SpeechStudio
DefaultGroupName=SpeechStudio
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=speechstudio-{#AppVersion}-windows-x64-{#Flavor}-setup
SetupIconFile=..\icons\speechstudio.ico
UninstallDisplayIcon={app}\SpeechStudioApp.exe
Compression=lzma2/max
SolidCompression=yes
ChangesEnvironment=yes
WizardStyle=modern

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "Add the speechstudio command to PATH"; Flags: unchecked

[Files]
Source: "..\..\dist\app\SpeechStudio\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\SpeechStudio"; Filename: "{app}\SpeechStudioApp.exe"
Name: "{group}\Check my setup (speechstudio doctor)"; Filename: "{cmd}"; Parameters: "/k ""{app}\SpeechStudio.exe"" doctor"
Name: "{autodesktop}\SpeechStudio"; Filename: "{app}\SpeechStudioApp.exe"; Tasks: desktopicon

[Registry]
; "Open with SpeechStudio" for audio and video files: queues them on the Transcribe page.
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\shell\open\command"; ValueType: string; ValueData: """{app}\SpeechStudioApp.exe"" gui ""%1"""; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\SupportedTypes"; ValueType: string; ValueName: ".mp3"; ValueData: ""
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\SupportedTypes"; ValueType: string; ValueName: ".wav"; ValueData: ""
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\SupportedTypes"; ValueType: string; ValueName: ".flac"; ValueData: ""
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\SupportedTypes"; ValueType: string; ValueName: ".ogg"; ValueData: ""
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\SupportedTypes"; ValueType: string; ValueName: ".m4a"; ValueData: ""
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\SupportedTypes"; ValueType: string; ValueName: ".opus"; ValueData: ""
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\SupportedTypes"; ValueType: string; ValueName: ".mp4"; ValueData: ""
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\SupportedTypes"; ValueType: string; ValueName: ".mkv"; ValueData: ""
Root: HKA; Subkey: "Software\Classes\Applications\SpeechStudioApp.exe\SupportedTypes"; ValueType: string; ValueName: ".webm"; ValueData: ""
Root: HKA; Subkey: "Software\Classes\.mp3\OpenWithList\SpeechStudioApp.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\.wav\OpenWithList\SpeechStudioApp.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\.flac\OpenWithList\SpeechStudioApp.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\.m4a\OpenWithList\SpeechStudioApp.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\.mp4\OpenWithList\SpeechStudioApp.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\SpeechStudioApp.exe"; Description: "{cm:LaunchProgram,SpeechStudio}"; Flags: nowait postinstall skipifsilent

[Code]
function NeedsAddPath(Dir: string): Boolean;
var
  Paths: string;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths) then
    Paths := '';
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Paths) + ';') = 0;
end;

// Uninstall: take out the ";<app folder>" that the addtopath task appended to the user's PATH.
procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
var
  Paths: string;
begin
  if (CurUninstallStep = usPostUninstall) and
     RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths) then
    if StringChangeEx(Paths, ';' + ExpandConstant('{app}'), '', True) > 0 then
      RegWriteExpandStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths);
end;
